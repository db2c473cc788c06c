import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { planSuite, unitGroup } from './test/support/machine.js';
import { patient } from './test/support/patience.js';
import { LongestFirst } from './test/support/sequencer.js';
import { builtPackagesNative } from './test/support/workers.js';

// Measured once per run, here, before any project's config or test file reads it: every worker inherits
// TEST_PATIENCE, so the run's budgets all scale by one figure (test/support/patience.ts).
const firstReading = !process.env.TEST_PLAN;
const plan = planSuite();
if (firstReading) {
  console.log(
    `test plan: ${plan.cores} cores, ${plan.workers} files at once, patience ${plan.patience} (${plan.patienceSource})`,
  );
}

export default defineConfig({
  test: {
    // From the machine's cores (test/support/machine.ts): each file starts processes of its own (an
    // emulator, bots), so more files than the processors can serve only stretch every wait.
    maxWorkers: plan.workers,
    sequence: { sequencer: LongestFirst },
    projects: [
      'packages/*/vitest.config.ts',
      {
        // The bot's repositories against real databases: PGlite, and PostgreSQL.
        test: {
          server: builtPackagesNative,
          name: 'slack-bot-store',
          ...unitGroup(),
          root: fileURLToPath(new URL('./packages/slack-bot', import.meta.url)),
          include: ['test/store/**/*.test.ts'],
          // TEST_DATABASE_URL's PostgreSQL, or one started for the run where it is unset.
          globalSetup: ['../../test/support/postgres.ts'],
          // `npm run test:quick` leaves out the file that runs initdb and kills PGlite in child processes.
          exclude: [
            ...configDefaults.exclude,
            ...(process.env.TEST_QUICK === '1' ? ['test/store/pglite.test.ts'] : []),
          ],
          // PGlite compiles its WebAssembly on open: seconds, more on a busy machine.
          hookTimeout: patient(30_000),
          testTimeout: patient(30_000),
          // expect.poll's own budget is 1 s, which replicas racing on PGlite outlast at load 20+; a poll
          // still ends the moment its condition holds.
          expect: { poll: { timeout: patient(10_000) } },
          // Files share a worker: PGlite's WebAssembly, which it compiles once per process, and the
          // store's modules load once per worker, not once per file. Each file opens its own stores and
          // schemas and closes them, so each still passes alone and in any order.
          isolate: false,
        },
      },
      {
        // Cross-package suites: the bot's built entry points against a real emulator and sandbox. They run
        // side by side with each other and the unit files, so a slow moment on a busy machine is normal:
        // the timeouts are generous and no test measures time.
        test: {
          server: builtPackagesNative,
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          setupFiles: ['test/e2e/setup.ts'],
          globalSetup: ['test/support/postgres.ts'],
          testTimeout: patient(60_000),
          hookTimeout: patient(120_000),
          // Files share a worker: the bot, the sandbox, Bolt and PGlite's WebAssembly load once per worker,
          // not once per file. Each file starts and stops its own emulator, sandbox, store and bots, sets no
          // environment and mocks nothing; setup.ts empties the captured log lines before each file.
          isolate: false,
        },
      },
      {
        // The image's manifests and overlays against their schemas, the alert rules' structure, the dashboard
        // and the publish workflow: files only. What needs promtool, Prometheus or kubectl is
        // `npm run test:deploy-tools` (test/deploy-tools/), which `npm test` never skips into.
        test: {
          server: builtPackagesNative,
          name: 'deploy',
          ...unitGroup(),
          include: ['test/deploy/**/*.test.ts'],
          testTimeout: patient(60_000),
          hookTimeout: patient(120_000),
          // Reads files and starts processes of its own; nothing kept between files.
          isolate: false,
        },
      },
      {
        // Rules over the repository's own files (sizes, first comments): reads files, starts nothing. Some
        // read every source and test file, which on a busy machine takes more than vitest's default 5 s.
        test: {
          server: builtPackagesNative,
          name: 'repo',
          ...unitGroup(),
          include: ['test/repo/**/*.test.ts'],
          testTimeout: patient(20_000),
          hookTimeout: patient(20_000),
          // Reads files only: one worker's module cache serves every file.
          isolate: false,
        },
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
