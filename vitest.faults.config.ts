import { defineConfig } from 'vitest/config';
import { base } from './test/helpers/vitest-base';

/**
 * The fault tests (npm run test:faults): a SIGKILL of the server and of a worker, a power cut
 * on the embedded database, a database outage, a held row lock, hostile input and slow clients.
 */
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    ...base,
    // One file at a time: they kill processes, cut power and time what a server does under it.
    fileParallelism: false,
    // The fault tests that start the server in-process take the migrated database too.
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 300_000,
    hookTimeout: 60_000,
  },
});
