import { defineConfig } from 'vitest/config';

/**
 * The fault tests (npm run test:faults): a SIGKILL of the server and of a worker, a power cut
 * on the embedded database, a database outage, a held row lock, hostile input and slow clients.
 */
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    pool: 'forks',
    execArgv: ['--experimental-websocket'],
    testTimeout: 300_000,
    hookTimeout: 60_000,
  },
});
