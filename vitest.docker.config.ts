import { defineConfig } from 'vitest/config';
import { base } from './test/helpers/vitest-base';

/**
 * The Docker driver against a real Docker Engine in Swarm mode (npm test sets the engine up): one
 * file at a time, one engine. The Town Star journey drives the built app in Chromium as well.
 */
export default defineConfig({
  test: {
    include: ['test/docker/**/*.test.ts'],
    ...base,
    fileParallelism: false,
    globalSetup: ['test/helpers/global-setup.ts', 'e2e/helpers/build-once.ts'],
    testTimeout: 180_000,
    hookTimeout: 120_000,
  },
});
