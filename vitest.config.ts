import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Web code reaches src/shared as the app's build does (vite.config.ts).
  resolve: { alias: { '@shared': new URL('./src/shared', import.meta.url).pathname } },
  test: {
    include: ['src/**/*.test.{ts,tsx}', 'test/**/*.test.ts'],
    // The fresh clone's run, the fault tests and the Docker Engine's: npm test runs them as their own steps.
    exclude: ['test/slow/**', 'test/faults/**', 'test/docker/**', 'node_modules/**'],
    pool: 'forks',
    globalSetup: ['test/helpers/global-setup.ts'],
    // supabase-js builds a realtime client, which needs WebSocket: behind a flag on Node 20.
    execArgv: ['--experimental-websocket'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
