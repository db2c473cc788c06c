import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'slack-sandbox',
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
  },
});
