import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'n8n-node',
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
  },
});
