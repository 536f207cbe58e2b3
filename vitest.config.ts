import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.{ts,tsx}', 'test/**/*.test.ts'],
    // Whole-process runs (fresh clone, SIGKILL): npm test runs them as their own step.
    exclude: ['test/slow/**', 'node_modules/**'],
    pool: 'forks',
    globalSetup: ['test/helpers/global-setup.ts'],
    // supabase-js builds a realtime client, which needs WebSocket: behind a flag on Node 20.
    execArgv: ['--experimental-websocket'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
