import { createJobDeps } from '../../src/server/jobs/app-worker';
import { startWorker } from '../../src/server/jobs/worker';
import type { TestServer } from './server';
import { until } from './wait';

/**
 * Runs every due job with a real worker, as the one beside npm start would, and returns once
 * none is pending or running: for tests of work the request hands to the queue (recovery mail).
 */
export async function runDueJobs(t: TestServer, timeoutMs = 10_000): Promise<void> {
  const worker = startWorker(await createJobDeps(t.deps), { concurrency: { nodes: 2, upkeep: 2 }, pollMs: 20, leaseSeconds: 30, schedules: [] });
  try {
    await until(
      'the queued jobs',
      async () =>
        (await t.deps.db.query<{ n: number }>(`select count(*)::int as n from nodeharbor.jobs where status in ('pending', 'running')`)).rows[0]!.n === 0,
      timeoutMs,
      20,
    );
  } finally {
    await worker.stop();
  }
}
