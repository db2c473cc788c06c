import { defineConfig } from 'vitest/config';
import { patient } from '../../test/support/patience.js';

export default defineConfig({
  test: {
    name: 'slack-sandbox',
    include: ['test/**/*.test.ts'],
    testTimeout: patient(20_000),
    // A hook that starts a process (the emulator) waits on the machine as much as a test does.
    hookTimeout: patient(30_000),
  },
});
