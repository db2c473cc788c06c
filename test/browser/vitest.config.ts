import { defineConfig } from 'vitest/config';
import { planSuite } from '../support/machine.js';
import { patient } from '../support/patience.js';

// Sets TEST_PATIENCE for the browser suite's own run, as the root config does for `npm test`.
planSuite();

// The browser suite: `npm run test:browser` (not part of `npm test`; it needs Debian's headless Chromium).
export default defineConfig({
  test: {
    name: 'browser',
    include: ['test/browser/**/*.test.ts'],
    testTimeout: patient(60_000),
    hookTimeout: patient(60_000),
    fileParallelism: false,
  },
});
