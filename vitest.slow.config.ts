import { defineConfig } from 'vitest/config';

/** The whole-process tests: a newcomer's fresh clone, and SIGKILL durability. */
export default defineConfig({
  test: {
    include: ['test/slow/**/*.test.ts'],
    pool: 'forks',
    execArgv: ['--experimental-websocket'],
    testTimeout: 600_000,
    hookTimeout: 60_000,
  },
});
