import { configDefaults, defineConfig } from 'vitest/config';

// `npm run test:quick` (TEST_QUICK=1) leaves out the files that start a process (the emulator).
const quick = process.env.TEST_QUICK === '1';

export default defineConfig({
  test: {
    name: 'core',
    include: ['test/**/*.test.ts'],
    exclude: [
      ...configDefaults.exclude,
      ...(quick
        ? ['test/client.integration.test.ts', 'test/follow/follower.test.ts', 'test/pure-api.test.ts']
        : []),
    ],
    testTimeout: 20_000,
  },
});
