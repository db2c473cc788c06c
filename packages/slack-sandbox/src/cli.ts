#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { agentOptionsFromEnv, parseAgentFeatures } from './agent/options.js';
import { oauthOptionsFromEnv } from './oauth/wiring.js';
import { startSandbox } from './server.js';

// The sandbox's own variables only: the bot's HOST (0.0.0.0 in production) must never expose it.
const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    oauth: { type: 'boolean' },
    'agent-features': { type: 'string' },
  },
});
const rawPort = values.port ?? process.env.SANDBOX_PORT;
const port = Number(rawPort ?? 4020);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write(
    `slack-sandbox: --port / SANDBOX_PORT must be an integer 0..65535, got "${rawPort}"\n`,
  );
  process.exit(2);
}
const host = values.host || process.env.SANDBOX_HOST || '127.0.0.1';
let oauth: ReturnType<typeof oauthOptionsFromEnv>;
// --agent-features on|off|unknown: answer as a workspace with, without, or before Slack's agent platform.
let agent: ReturnType<typeof agentOptionsFromEnv>;
try {
  oauth = oauthOptionsFromEnv(values.oauth ? { ...process.env, SANDBOX_OAUTH: 'on' } : process.env);
  agent = agentOptionsFromEnv();
  if (values['agent-features'])
    agent.features = parseAgentFeatures(values['agent-features'], '--agent-features');
} catch (error) {
  process.stderr.write(`slack-sandbox: ${(error as Error).message}\n`);
  process.exit(2);
}
const sandbox = await startSandbox({ port, host, agent, ...(oauth ? { oauth } : {}) });
process.stdout.write(`Slack sandbox listening on ${sandbox.url}\n`);
// The tokens and secret are new at each start; a bot needs them to talk to this sandbox.
if (sandbox.oauth) {
  // Distributed with OAuth: the bot gets its tokens by being installed, per workspace.
  process.stdout.write(
    `  SLACK_API_URL=${sandbox.apiUrl}\n  SLACK_CLIENT_ID=${sandbox.oauth.clientId}\n  SLACK_CLIENT_SECRET=${sandbox.oauth.clientSecret}\n  SLACK_SIGNING_SECRET=${sandbox.signingSecret}\n  authorize URL: ${sandbox.oauth.authorizeUrl}\n`,
  );
} else {
  process.stdout.write(
    `  SLACK_API_URL=${sandbox.apiUrl}\n  SLACK_BOT_TOKEN=${sandbox.botToken}\n  SLACK_SIGNING_SECRET=${sandbox.signingSecret}\n`,
  );
}
const stop = () => void sandbox.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
