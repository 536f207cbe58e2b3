import { defineConfig } from 'vitest/config';
import { base } from './test/helpers/vitest-base';

/** The whole-process test of a newcomer's fresh clone. */
export default defineConfig({
  test: {
    include: ['test/slow/**/*.test.ts'],
    ...base,
    testTimeout: 600_000,
    hookTimeout: 60_000,
  },
});
