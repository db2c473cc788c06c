#!/usr/bin/env node
import { loadConfigOrExit } from './config/index.js';
import { type RunningBot, startBot } from './wiring/index.js';

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
  process.once('SIGINT', () => goAway(bot, config.shutdownGraceMs));
  process.once('SIGTERM', () => goAway(bot, config.shutdownGraceMs));
}

/**
 * SIGTERM (a rolling update, a scale-down) or SIGINT: the bot drains within the grace (shutdown.ts), and
 * the process exits by then whatever is still pending, before the orchestrator's SIGKILL. A second
 * signal exits at once.
 */
function goAway(bot: RunningBot, graceMs: number): void {
  const force = setTimeout(() => {
    process.stderr.write(`The bot did not stop within ${graceMs / 1000} s: exiting.\n`);
    process.exit(1);
  }, graceMs);
  const now = () => {
    process.stderr.write('A second signal: exiting at once.\n');
    process.exit(1);
  };
  process.once('SIGINT', now);
  process.once('SIGTERM', now);
  bot.stop({ graceMs }).then(
    () => {
      clearTimeout(force);
      process.exit(0);
    },
    (error: unknown) => {
      process.stderr.write(
        `The bot stopped with an error: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      process.exit(1);
    },
  );
}

main().catch((error: unknown) => {
  process.stderr.write(
    `The bot could not start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
