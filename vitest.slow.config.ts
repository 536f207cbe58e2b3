import { defineConfig } from 'vitest/config';

/** The whole-process test of a newcomer's fresh clone. */
export default defineConfig({
  test: {
    include: ['test/slow/**/*.test.ts'],
    pool: 'forks',
    execArgv: ['--experimental-websocket'],
    testTimeout: 600_000,
    hookTimeout: 60_000,
  },
});
