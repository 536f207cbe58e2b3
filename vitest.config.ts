import { defineConfig } from 'vitest/config';
import { base, resolve, WORKERS } from './test/helpers/vitest-base';

/**
 * Files that kill processes or measure time run one at a time, after the others: a process killed
 * or a clock read while another file loads the machine would test the load, not the code.
 */
const serial = [
  // Kill processes: a holder of the data folder, a server, a CLI, a cluster's workers.
  'src/server/db/data-folder-lock.test.ts',
  'test/operating/control-channel.test.ts',
  'test/operating/cli-while-serving.test.ts',
  'test/operating/cluster.test.ts',
  'test/operating/migrate-to.test.ts',
  'test/operating/shutdown.test.ts',
  // Measure time: a request's answer while mail waits, and statements held past a deadline.
  'test/lifecycle/mail-queue.test.ts',
  'test/rest/stall.test.ts',
  'test/rest/statement-deadline.test.ts',
];

export default defineConfig({
  resolve,
  test: {
    ...base,
    globalSetup: ['test/helpers/global-setup.ts'],
    // A worker keeps its modules from one file to the next: each file still starts its own server
    // over its own database, but the server's modules and PGlite are loaded once per worker, not
    // once per file. Measured on the PGlite pass alone: 300 s of CPU instead of 472, 226 s of wall
    // time instead of 329. A file must leave nothing behind that another would see (process.env,
    // a module's state): put back what it changes.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'parallel',
          include: ['src/**/*.test.{ts,tsx}', 'test/**/*.test.ts'],
          // The fresh clone's run, the fault tests and the Docker Engine's: npm test runs them as their own passes.
          exclude: ['test/slow/**', 'test/faults/**', 'test/docker/**', 'node_modules/**', ...serial],
          maxWorkers: WORKERS,
        },
      },
      { extends: true, test: { name: 'serial', include: serial, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
});
