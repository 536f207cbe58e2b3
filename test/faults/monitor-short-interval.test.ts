import { afterAll, beforeAll, expect, it } from 'vitest';
import { startAppWorker } from '../../src/server/jobs/app-worker';
import type { Worker } from '../../src/server/jobs/worker';
import { startTestServer, type TestServer } from '../helpers/server';
import { createService, createTestUser } from '../helpers/users';
import { until } from '../helpers/wait';

// Issue 33, item 12: with NODE_MONITOR_INTERVAL_SECONDS=3 the sweeps ran at the worker's own
// cadence, every 10 s; every gap was then longer than three intervals and counted as not observed,
// so service_uptime stayed empty while the node was online. The app's worker, as npm start runs
// it (its default poll), must keep the 3 s interval, and the node's uptime be recorded.

const INTERVAL_SECONDS = 3;
const SWEEPS = 5;

let s: TestServer;
let worker: Worker | undefined;
beforeAll(async () => {
  s = await startTestServer({
    RATE_LIMITS_ENABLED: 'false',
    PROVISION_INSTALL_SECONDS: '0',
    INSTALL_SETTLE_SECONDS: '0',
    NODE_MONITOR_INTERVAL_SECONDS: String(INTERVAL_SECONDS),
  });
  worker = await startAppWorker(s.deps);
});
afterAll(async () => {
  await worker?.stop();
  await s.stop();
});

const sweptAt = async () => (await s.deps.db.query<{ at: Date }>('select swept_at as at from private.node_monitor')).rows[0]?.at.getTime();

it(`records the uptime of an online node with a ${INTERVAL_SECONDS} s monitor interval`, async () => {
  const u = await createTestUser(s, { credits: 10 });
  const id = await createService(u, 'watched');
  // Installed by the worker, then seen online by a sweep.
  await until(
    'the node seen online',
    async () => (await s.deps.db.query(`select 1 from private.node_status where service_id = $1 and state = 'online'`, [id])).rows.length > 0,
    60_000,
  );
  // The sweeps that follow, each adding the time since the one before to the node's uptime.
  const sweeps = [(await sweptAt())!];
  while (sweeps.length <= SWEEPS) {
    const last = sweeps.at(-1)!;
    sweeps.push(
      await until(
        'the next sweep',
        async () => {
          const at = (await sweptAt())!;
          return at > last ? at : undefined;
        },
        60_000,
        100,
      ),
    );
  }
  const gaps = sweeps.slice(1).map((t, i) => (t - sweeps[i]!) / 1000);
  const { data, error } = await u.client.from('service_uptime').select('seconds_online, seconds_observed').eq('service_id', id);
  expect(error).toBeNull();
  const online = (data ?? []).reduce((sum, r) => sum + r.seconds_online, 0);
  const observed = (data ?? []).reduce((sum, r) => sum + r.seconds_observed, 0);
  console.log(`sweeps ${gaps.map((g) => g.toFixed(1)).join(' s, ')} s apart; uptime ${online} s online of ${observed} s observed`);
  // Every sweep's span counted: at least the time from the first sweep above to the last (rounded per day).
  const span = (sweeps.at(-1)! - sweeps[0]!) / 1000;
  expect(online).toBeGreaterThanOrEqual(Math.floor(span) - 1);
  expect(online).toBe(observed);
}, 180_000);
