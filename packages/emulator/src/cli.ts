#!/usr/bin/env node
import { ConfigError, loadConfig, USAGE } from './config.js';
import { quirkNames } from './quirks.js';
import { startEmulator } from './server.js';

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.argv.slice(2), process.env);
  } catch (error) {
    const message =
      error instanceof ConfigError || error instanceof TypeError ? error.message : String(error);
    process.stderr.write(`agent-sessions-emulator: ${message}\n\n${USAGE}\n`);
    process.exit(2);
  }
  if (config === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const emulator = await startEmulator(config);
  // The first line is what scripts and tests wait for; keep its wording stable.
  process.stdout.write(`Agent Session Service emulator listening on ${emulator.url}\n`);
  // A development tool: printing the local keys is how a newcomer learns them. They unlock nothing real.
  process.stdout.write(
    `  API keys: ${config.apiKeys.join(', ')}\n  clock: ${config.clock}${config.clock === 'real' ? ` (speed ${config.speed}x)` : ''}\n  OpenAPI: ${emulator.url}/openapi.json\n`,
  );
  const quirks = quirkNames(config.quirks);
  if (quirks.length > 1 || config.quirks.after !== 'round-created') {
    process.stdout.write(`  quirks: ${quirks.join(', ')}\n`);
  }
  const shutdown = () => {
    void emulator.close().then(() => process.exit(0));
    setTimeout(() => process.exit(0), 3000).unref();
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `agent-sessions-emulator: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
