#!/usr/bin/env node
import { loadConfigOrExit } from './config/index.js';
import { startBot } from './wiring/index.js';

/**
 * `node dist/main.js`: the bot from the environment. Slack and service settings are required here; the
 * repository's `npm start` fills them with a local sandbox and emulator when they are absent.
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit(process.env);
  const missing = [
    !config.slack && 'SLACK_BOT_TOKEN (with SLACK_SIGNING_SECRET or SLACK_APP_TOKEN)',
    !config.service && 'AGENT_SERVICE_URL and AGENT_API_KEY',
  ].filter(Boolean);
  if (!config.slack || !config.service) {
    process.stderr.write(
      `Configuration error: set ${missing.join(' and ')}, or run \`npm start\` at the repository root for a local sandbox and emulator.\n`,
    );
    process.exit(2);
  }
  const bot = await startBot({ ...config, slack: config.slack, service: config.service });
  if (bot.eventsUrl) process.stdout.write(`Slack request URL: ${bot.eventsUrl}\n`);
  else process.stdout.write(`Socket Mode; health, metrics and audit at ${bot.url}\n`);
  const shutdown = () => {
    bot.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `The bot could not start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
