import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'slack-bot',
    include: ['test/**/*.test.ts'],
    // The SQL on PGlite and PostgreSQL: project 'slack-bot-store' (root vitest.config.ts). A PGlite takes
    // seconds to start; the bot's decisions here run in milliseconds.
    exclude: ['test/store/**'],
    testTimeout: 20_000,
    // PGlite compiles its WebAssembly on open: seconds, more on a busy machine.
    hookTimeout: 30_000,
    // Files share a worker's module cache: Bolt, the sandbox and zod load once per worker, not per file.
    // Tests keep no module-level state (fakes are made per test), so isolation buys nothing here.
    isolate: false,
  },
});
