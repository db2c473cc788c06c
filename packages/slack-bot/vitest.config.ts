import { configDefaults, defineConfig } from 'vitest/config';
import { unitGroup } from '../../test/support/machine.js';
import { patient } from '../../test/support/patience.js';
import { builtPackagesNative } from '../../test/support/workers.js';

// `npm run test:quick` (TEST_QUICK=1) leaves out the files that start a process (the bot's entry point).
const quick = process.env.TEST_QUICK === '1';

export default defineConfig({
  test: {
    ...unitGroup(),
    name: 'slack-bot',
    include: ['test/**/*.test.ts'],
    // The SQL on PGlite and PostgreSQL: project 'slack-bot-store' (root vitest.config.ts). A PGlite takes
    // seconds to start; the bot's decisions here run in milliseconds.
    exclude: [...configDefaults.exclude, 'test/store/**', ...(quick ? ['test/config.test.ts'] : [])],
    server: builtPackagesNative,
    testTimeout: patient(20_000),
    // PGlite compiles its WebAssembly on open: seconds, more on a busy machine.
    hookTimeout: patient(30_000),
    // Files share a worker's module cache: Bolt, the sandbox and zod load once per worker, not per file.
    // Tests keep no module-level state (fakes are made per test), so isolation buys nothing here.
    isolate: false,
  },
});
