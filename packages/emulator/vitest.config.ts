import { configDefaults, defineConfig } from 'vitest/config';
import { unitGroup } from '../../test/support/machine.js';
import { patient } from '../../test/support/patience.js';
import { builtPackagesNative } from '../../test/support/workers.js';

// `npm run test:quick` (TEST_QUICK=1) leaves out the files that start a process (the emulator's CLI).
const quick = process.env.TEST_QUICK === '1';

export default defineConfig({
  test: {
    ...unitGroup(),
    name: 'emulator',
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...(quick ? ['test/process.test.ts'] : [])],
    server: builtPackagesNative,
    testTimeout: patient(20_000),
    // A hook that starts a process (the emulator) waits on the machine as much as a test does.
    hookTimeout: patient(30_000),
    // Files share a worker's module cache: a file then costs its own tests, not a fresh process
    // loading the package again. Tests keep no state outside their file (fakes, servers and processes are
    // made per file or per test), so each still passes alone and in any order.
    isolate: false,
  },
});
