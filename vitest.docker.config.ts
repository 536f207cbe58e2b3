import { defineConfig } from 'vitest/config';
import { base } from './test/helpers/vitest-base';

/** The Docker driver against a real Docker Engine in Swarm mode (npm test sets the engine up): one file at a time, one engine. */
export default defineConfig({
  test: {
    include: ['test/docker/**/*.test.ts'],
    ...base,
    fileParallelism: false,
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 180_000,
    hookTimeout: 120_000,
  },
});
