import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const E2E_DIR = fileURLToPath(new URL('./test/e2e', import.meta.url));
const e2eFiles = readdirSync(E2E_DIR).filter((name) => name.endsWith('.test.ts')).length;

/**
 * The end-to-end files go first, the longest first (vitest's own order inside a project: by the last run's
 * duration, else by size), so they all wait on their scripted agents and paced Slack posts side by side
 * while the unit files use the CPU they leave idle.
 */
class EndToEndFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const isE2e = (spec: TestSpecification) => spec.project.name === 'e2e';
    return [...sorted.filter(isE2e), ...sorted.filter((spec) => !isE2e(spec))];
  }
}

export default defineConfig({
  test: {
    // A worker for every end-to-end file at once, and two for the unit files. The end-to-end files spend
    // their time waiting (on the emulator's clock, on Slack's pacing), not computing: run one after another
    // they took 7 of the 8 minutes. Vitest's default on a 2-core machine is one worker for everything.
    // Each file already has its own ports, stores and processes, so nothing they hold is shared.
    maxWorkers: e2eFiles + 2,
    sequence: { sequencer: EndToEndFirst },
    projects: [
      'packages/*/vitest.config.ts',
      {
        // The bot's repositories against real databases (PGlite, and PostgreSQL with TEST_DATABASE_URL).
        test: {
          name: 'slack-bot-store',
          root: fileURLToPath(new URL('./packages/slack-bot', import.meta.url)),
          include: ['test/store/**/*.test.ts'],
          // `npm run test:quick` leaves out the file that runs initdb and kills PGlite in child processes.
          exclude: [
            ...configDefaults.exclude,
            ...(process.env.TEST_QUICK === '1' ? ['test/store/pglite.test.ts'] : []),
          ],
          // PGlite compiles its WebAssembly on open: seconds, more on a busy machine.
          hookTimeout: 30_000,
          testTimeout: 30_000,
        },
      },
      {
        // Cross-package suites: the bot's built entry points against a real emulator and sandbox. They run
        // side by side with each other and the unit files, so a slow moment on a busy machine is normal:
        // the timeouts are generous and no test measures time.
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          setupFiles: ['test/e2e/setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
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
