import { defineConfig } from 'vitest/config';

/**
 * The fault tests (npm run test:faults): a SIGKILL of the server and of a worker, a power cut
 * on the embedded database, a database outage, a held row lock, hostile input and slow clients.
 */
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    pool: 'forks',
    // The fault tests that start the server in-process take the migrated PGlite snapshot too.
    globalSetup: ['test/helpers/global-setup.ts'],
    execArgv: ['--experimental-websocket'],
    testTimeout: 300_000,
    hookTimeout: 60_000,
  },
});
