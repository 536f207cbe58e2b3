import { afterAll, beforeAll, expect, it } from 'vitest';
import { createJobDeps } from '../../src/server/jobs/app-worker';
import { enqueue } from '../../src/server/jobs/queue';
import type { JobDeps } from '../../src/server/jobs/task';
import { startWorker, type Worker } from '../../src/server/jobs/worker';
import { forceServiceState } from '../helpers/service-state';
import { startTestServer, type TestServer } from '../helpers/server';
import { createService, createTestUser } from '../helpers/users';
import { waitFor } from '../lifecycle/helpers';

// A thousand installs queued behind an engine that hangs (an image that takes forever to pull)
// must not hold up a renewal: the worker's upkeep lane runs it within one sweep.

let s: TestServer;
let worker: Worker | undefined;
let letGo: () => void = () => undefined;
const engineHangs = new Promise<void>((r) => (letGo = r));
beforeAll(async () => {
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'false', PROVISION_INSTALL_SECONDS: '0', INSTALL_SETTLE_SECONDS: '0' });
});
afterAll(async () => {
  letGo();
  await worker?.stop();
  await s.stop();
});

it('renews a due service within one sweep while a thousand installs wait on a hanging engine', async () => {
  const u = await createTestUser(s, { credits: 100 });
  // Due for renewal now: active, its period over.
  const due = await createService(u, 'due-now');
  await s.deps.db.query(`delete from nodeharbor.jobs`);
  await forceServiceState(s.deps.db, 'active', 'id = $1', due, "renews_at = now() - interval '1 minute'");
  // Two installs hold the node lane's two slots on the hanging engine; 998 more wait behind them.
  const hanging = [await createService(u, 'hangs-1'), await createService(u, 'hangs-2')];
  await s.deps.db.query(`update nodeharbor.jobs set run_at = now() - interval '2 hours' where task = 'install-service'`);
  await s.deps.db.query(
    `insert into nodeharbor.jobs (task, payload, run_at)
     select 'install-service', jsonb_build_object('serviceId', gen_random_uuid()), now() - interval '1 hour' from generate_series(1, 998)`,
  );
  const deps = await createJobDeps(s.deps);
  const stuck: JobDeps['provisioner'] = {
    ...deps.provisioner,
    async install(spec) {
      await engineHangs;
      return deps.provisioner.install(spec);
    },
  };
  worker = startWorker({ ...deps, provisioner: stuck }, { concurrency: { nodes: 2, upkeep: 2 }, pollMs: 50, leaseSeconds: 30, schedules: [] });
  await enqueue(s.deps.db, 'renewal-sweep', {});

  const charged = await waitFor(
    'the renewal',
    async () => {
      const { rows } = await s.deps.db.query<{ amount: string }>(
        `select amount from public.credit_transactions where service_id = $1 and description like 'Service renewal%'`,
        [due],
      );
      return rows[0];
    },
    30_000,
  );
  expect(charged.amount).toBe('-10.00');
  const { rows } = await s.deps.db.query<{ status: string; n: number }>(
    `select status, count(*)::int as n from nodeharbor.jobs where task = 'install-service' group by status order by status`,
  );
  expect(rows).toEqual([
    { status: 'pending', n: 998 },
    { status: 'running', n: 2 },
  ]);
  const { rows: installing } = await s.deps.db.query<{ state: string }>('select state::text from private.services where id = any($1::uuid[])', [hanging]);
  expect(installing.map((r) => r.state)).toEqual(['installing', 'installing']);
  console.log(`a renewal charged within one sweep, with ${rows.find((r) => r.status === 'pending')!.n} installs queued and 2 hanging on the engine`);
}, 120_000);
