import { defineConfig } from 'vitest/config';

/** The browser journeys: Debian's Chromium driven by playwright-core, against the built app on the real server. */
export default defineConfig({
  resolve: { alias: { '@shared': new URL('./src/shared', import.meta.url).pathname } },
  test: {
    include: ['e2e/**/*.spec.ts'],
    pool: 'forks',
    // Two files at a time: each runs its own server and Chromium on a 2-core machine.
    maxWorkers: 2,
    globalSetup: ['test/helpers/global-setup.ts', 'e2e/helpers/build-once.ts'],
    execArgv: ['--experimental-websocket'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
