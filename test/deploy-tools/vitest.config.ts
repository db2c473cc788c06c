import { defineConfig } from 'vitest/config';
import { planSuite } from '../support/machine.js';
import { patient } from '../support/patience.js';

// Sets TEST_PATIENCE for this suite's own run, as the root config does for `npm test`.
planSuite();

// `npm run test:deploy-tools`: the monitoring files in Debian's promtool and a real Prometheus scraping a
// running bot, and the overlays rendered by kubectl. Not part of `npm test`, which must run whole on a fresh
// clone; CI installs the tools and runs this suite, and a missing tool fails it, saying how to get it.
export default defineConfig({
  test: {
    name: 'deploy-tools',
    include: ['test/deploy-tools/**/*.test.ts'],
    testTimeout: patient(60_000),
    hookTimeout: patient(120_000),
  },
});
