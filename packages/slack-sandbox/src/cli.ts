#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { startSandbox } from './server.js';

const { values } = parseArgs({ options: { port: { type: 'string' }, host: { type: 'string' } } });
const port = Number(values.port ?? process.env.PORT ?? 4020);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write(
    `slack-sandbox: --port / PORT must be an integer 0..65535, got "${values.port ?? process.env.PORT}"\n`,
  );
  process.exit(2);
}
const sandbox = await startSandbox({ port, host: values.host ?? process.env.HOST ?? '127.0.0.1' });
process.stdout.write(`Slack sandbox listening on ${sandbox.url}\n`);
// A development tool: these local values unlock nothing real; a bot needs them to talk to the sandbox.
process.stdout.write(
  `  SLACK_API_URL=${sandbox.apiUrl}\n  SLACK_BOT_TOKEN=${sandbox.botToken}\n  SLACK_SIGNING_SECRET=${sandbox.signingSecret}\n`,
);
const stop = () => void sandbox.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
