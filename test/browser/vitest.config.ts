import { defineConfig } from 'vitest/config';

// The browser suite: `npm run test:browser` (not part of `npm test`; it needs Debian's headless Chromium).
export default defineConfig({
  test: {
    name: 'browser',
    include: ['test/browser/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
