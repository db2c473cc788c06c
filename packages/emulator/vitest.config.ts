import { configDefaults, defineConfig } from 'vitest/config';
import { patient } from '../../test/support/patience.js';

// `npm run test:quick` (TEST_QUICK=1) leaves out the files that start a process (the emulator's CLI).
const quick = process.env.TEST_QUICK === '1';

export default defineConfig({
  test: {
    name: 'emulator',
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...(quick ? ['test/process.test.ts'] : [])],
    testTimeout: patient(20_000),
    // A hook that starts a process (the emulator) waits on the machine as much as a test does.
    hookTimeout: patient(30_000),
  },
});
