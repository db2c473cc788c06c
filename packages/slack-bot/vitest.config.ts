import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'slack-bot',
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
  },
});
