import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      'packages/*/vitest.config.ts',
      {
        // The bot's repositories against real databases (PGlite, and PostgreSQL with TEST_DATABASE_URL).
        test: {
          name: 'slack-bot-store',
          root: fileURLToPath(new URL('./packages/slack-bot', import.meta.url)),
          include: ['test/store/**/*.test.ts'],
          // PGlite compiles its WebAssembly on open: seconds, more on a busy machine.
          hookTimeout: 30_000,
          testTimeout: 30_000,
        },
      },
      {
        // Cross-package suites: the bot's built entry points against a real emulator and sandbox.
        test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], testTimeout: 20_000 },
      },
      {
        // Rules over the repository's own files (sizes, first comments): reads files, starts nothing.
        test: { name: 'repo', include: ['test/repo/**/*.test.ts'] },
      },
    ],
    // `npm run test:coverage`: V8 coverage of the packages' sources as the tests load them. Code that only runs
    // inside child processes (the bot, the emulator, the sandbox as spawned by the end-to-end suites) is not
    // counted: the figures are a floor, not the whole truth.
    coverage: {
      provider: 'v8',
      include: [
        'packages/*/src/**/*.ts',
        'packages/n8n-node/nodes/**/*.ts',
        'packages/n8n-node/credentials/**/*.ts',
      ],
      exclude: ['**/*.d.ts', '**/dist/**'],
      reporter: ['text-summary', 'json-summary'],
      reportsDirectory: 'coverage',
      reportOnFailure: true,
    },
  },
});
