import { configDefaults, defineConfig } from 'vitest/config';

// `npm run test:quick` (TEST_QUICK=1) leaves out the files that start a process (the emulator).
const quick = process.env.TEST_QUICK === '1';

export default defineConfig({
  test: {
    name: 'n8n-node',
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...(quick ? ['test/node.test.ts'] : [])],
    testTimeout: 30_000,
  },
});
