import { defineConfig } from 'vitest/config';
import { base } from './test/helpers/vitest-base';

/**
 * Against a real Docker Engine in Swarm mode (npm test sets the engine up), as two groups at once:
 * the Swarm's files one at a time, since they share one engine's nodes and events; and beside them
 * NodeHarbor's own image, which builds and runs plain containers of its run's own names and no
 * Swarm object. Its build is most of this pass's CPU, and the Swarm's files mostly wait on the
 * engine.
 */
export default defineConfig({
  test: {
    ...base,
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 180_000,
    hookTimeout: 120_000,
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'swarm', include: ['test/docker/**/*.test.ts'], exclude: ['test/docker/image.test.ts'], maxWorkers: 1 } },
      { extends: true, test: { name: 'image', include: ['test/docker/image.test.ts'], maxWorkers: 1 } },
    ],
  },
});
