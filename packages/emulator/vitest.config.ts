import { configDefaults, defineConfig } from 'vitest/config';

// `npm run test:quick` (TEST_QUICK=1) leaves out the files that start a process (the emulator's CLI).
const quick = process.env.TEST_QUICK === '1';

export default defineConfig({
  test: {
    name: 'emulator',
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...(quick ? ['test/process.test.ts'] : [])],
    testTimeout: 20_000,
  },
});
