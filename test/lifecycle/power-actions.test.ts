import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { addCredits } from '../../src/server/domain/credits';
import { createJobDeps } from '../../src/server/jobs/app-worker';
import { enqueue } from '../../src/server/jobs/queue';
import type { JobDeps } from '../../src/server/jobs/task';
import { sweepNodes } from '../../src/server/provisioning/node-monitor';
import { reconcileNodes } from '../../src/server/provisioning/reconciler';
import { NODE_EVENTS } from '../../src/shared/node-health';
import { serviceEventText } from '../../src/shared/service-events';
import { expectLedgerBalanced } from '../helpers/ledger';
import { forceServiceState } from '../helpers/service-state';
import { createTestUser, GALA_KEY, LICENCE_KEY, MASTER_NODE, TOWN_STAR, type TestUser } from '../helpers/users';
import { queueIsIdle, startLifecycleServer, waitFor } from './helpers';

// Restart, Stop and Start (issue 36, item 1) through the owner's RPC and the app's own worker on
// the simulated driver: what reaches the node, what the monitor and the reconciler make of a node
// stopped on request, and that renewal, suspension and extension leave it stopped.
// test/docker/power.test.ts runs the same on a real Swarm.

let s: Awaited<ReturnType<typeof startLifecycleServer>>;
let deps: JobDeps;
beforeAll(async () => {
  s = await startLifecycleServer({
    // The tests sweep and reconcile themselves.
    RECONCILE_INTERVAL_SECONDS: '86400',
    NODE_MONITOR_INTERVAL_SECONDS: '120',
  });
  deps = await createJobDeps(s.deps);
});
// Money moves here (renewals): every balance stays its ledger's sum.
afterEach(() => expectLedgerBalanced(s.deps.db));
afterAll(() => s.stop());

const sql = <T>(text: string, params: unknown[] = []) => s.deps.db.query<T>(text, params).then((r) => r.rows);
const drain = () => waitFor('the queue to drain', () => queueIsIdle(s.deps.db));
const power = async (u: TestUser, id: string, action: string) => {
  const { error } = await u.client.rpc('service_power_action', { p_service_id: id, p_action: action });
  if (error) throw error;
  await drain();
};
const node = async (id: string) =>
  (await sql<{ state: string; task: number }>('select state, task from nodeharbor.simulated_nodes where service_id = $1', [id]))[0];
const row = async (id: string) =>
  (
    await sql<{ state: string; stopped_at: Date | null; renews_at: Date }>(
      'select state::text as state, stopped_at, renews_at from private.services where id = $1',
      [id],
    )
  )[0]!;
const nodeState = async (u: TestUser, id: string) =>
  ((await u.client.from('services').select('node_state').eq('id', id).single()).data as { node_state: string }).node_state;
const f = { date: (iso: string) => iso, money: (n: number) => `$${n}` };
/** The service's history as its owner reads it, without the monitor's node events (whenever its sweeps fall). */
const told = async (id: string) =>
  (
    await sql<{ event: string; detail: null }>(
      `select event, detail from public.service_events where service_id = $1 and event <> all($2::text[]) order by id`,
      [id, [...NODE_EVENTS]],
    )
  ).map((e) => serviceEventText(e.event, e.detail, f));
const incidents = async (id: string) => (await sql<{ n: number }>('select count(*)::int as n from private.node_incidents where service_id = $1', [id]))[0]!.n;
const renewalSweep = async () => {
  await s.deps.db.transaction((tx) => enqueue(tx, 'renewal-sweep', {}));
  await drain();
};

async function activeService(u: TestUser, name: string, product = TOWN_STAR, key = GALA_KEY): Promise<string> {
  const { data, error } = await u.client.rpc('create_service_securely', { p_name: name, p_description: null, p_api_key: key, p_product_id: product });
  if (error) throw error;
  const id = (data as { id: string }).id;
  await waitFor('the installation', async () => (await row(id)).state === 'active');
  await drain();
  return id;
}

it('restarts the node in a new run, which the monitor does not count as a crash', async () => {
  const u = await createTestUser(s, { credits: 20 });
  const id = await activeService(u, 'restart-me');
  await sweepNodes(deps);
  const run = (await node(id))!.task;
  await power(u, id, 'restart');
  expect(await node(id)).toEqual({ state: 'running', task: run + 1 });
  await sweepNodes(deps);
  expect(await nodeState(u, id)).toBe('online');
  const { rows } = await s.deps.db.query(`select 1 from public.service_events where service_id = $1 and event = 'node_restarted'`, [id]);
  expect(rows).toEqual([]);
  expect(await told(id)).toEqual(['Installation started', 'Node installed', 'Restarted by you']);
});

it('keeps a stopped node stopped: Stopped to the monitor with no alert, left so by the reconciler, and renewed as paid for; Start runs it', async () => {
  const u = await createTestUser(s, { credits: 20 });
  const id = await activeService(u, 'stop-me');
  await sweepNodes(deps);
  await power(u, id, 'stop');
  expect((await node(id))!.state).toBe('stopped');
  await sweepNodes(deps);
  expect(await nodeState(u, id)).toBe('stopped');

  // Long after any alert delay, the reconciler finds nothing to repair and no incident opens.
  await sql(`update private.node_monitor set swept_at = now() - interval '2 hours'`);
  await sweepNodes(deps);
  expect((await reconcileNodes(deps)).filter((c) => c.serviceId === id)).toEqual([]);
  expect((await node(id))!.state).toBe('stopped');
  expect(await nodeState(u, id)).toBe('stopped');
  expect(await incidents(id)).toBe(0);

  // Its node lost meanwhile: the monitor still says Stopped, and the reconciler makes it again, stopped.
  await sql('delete from nodeharbor.simulated_nodes where service_id = $1', [id]);
  await sweepNodes(deps);
  expect(await nodeState(u, id)).toBe('stopped');
  expect((await sql<{ reason: string | null }>('select reason from private.node_status where service_id = $1', [id]))[0]!.reason).toBeNull();
  expect((await reconcileNodes(deps)).filter((c) => c.serviceId === id)).toEqual([{ serviceId: id, event: 'node_recreated' }]);
  expect((await node(id))!.state).toBe('stopped');

  // The paid period runs on: due, it renews from the credit, and the node stays stopped.
  await sql(`update private.services set renews_at = now() - interval '1 minute' where id = $1`, [id]);
  await renewalSweep();
  expect(await row(id)).toMatchObject({ state: 'active', stopped_at: expect.any(Date) });
  expect((await row(id)).renews_at.getTime()).toBeGreaterThan(Date.now());
  expect((await node(id))!.state).toBe('stopped');

  await power(u, id, 'start');
  expect((await node(id))!.state).toBe('running');
  await sweepNodes(deps);
  expect(await nodeState(u, id)).toBe('online');
  expect((await reconcileNodes(deps)).filter((c) => c.serviceId === id)).toEqual([]);
  expect(await incidents(id)).toBe(0);
  const history = await told(id);
  expect(history.filter((t) => /by you|Node recreated/.test(t))).toEqual(['Stopped by you', 'Node recreated', 'Started by you']);
  expect(history.some((t) => t.startsWith('Renewed'))).toBe(true);
});

it('opens no incident for a node stopped on request that the engine reports down, as it does for one meant to run', async () => {
  // The Master Node has no alert delay of its own: the one given here, none, applies.
  const u = await createTestUser(s, { credits: 20 });
  const stopped = await activeService(u, 'mn-stopped', MASTER_NODE, LICENCE_KEY);
  const running = await activeService(u, 'mn-running', MASTER_NODE, LICENCE_KEY);
  await sweepNodes(deps);
  await power(u, stopped, 'stop');
  // A machine still powering off, or a stop whose node crashed on its way down.
  const down = JSON.stringify([stopped, running].map((id) => ({ service_id: id, state: 'offline', task_id: null, reason: 'the host does not answer' })));
  const alerts = async () =>
    (await sql<{ action: string; service_id: string }>('select action, service_id from private.record_node_samples($1::jsonb, 100000, 0)', [down])).filter(
      (a) => a.service_id === stopped || a.service_id === running,
    );
  // With no delay, the one meant to run has its incident at once; the stopped one none.
  await sql(`update private.node_monitor set swept_at = now() - interval '1 second'`);
  expect(await alerts()).toEqual([{ action: 'down', service_id: running }]);
  await sql(`update private.node_monitor set swept_at = now() - interval '1 second'`);
  expect(await alerts()).toEqual([]);
  expect(await nodeState(u, stopped)).toBe('stopped');
  expect(await nodeState(u, running)).toBe('offline');
  expect(await incidents(stopped)).toBe(0);
  expect(await incidents(running)).toBe(1);
});

it('stays stopped through a suspension and a payment, and through an expiry and an extension; Start runs it', async () => {
  // Exactly the price: the first renewal finds no credit and suspends.
  const u = await createTestUser(s, { credits: 10 });
  const id = await activeService(u, 'owner-stopped');
  await power(u, id, 'stop');
  await sql(`update private.services set renews_at = now() - interval '1 minute' where id = $1`, [id]);
  await renewalSweep();
  expect((await row(id)).state).toBe('suspended');
  expect((await node(id))!.state).toBe('stopped');
  // Paid again: renewed and active, but its owner stopped it, and it stays so.
  await addCredits(s.deps.db, u.id, 10, 'Top-up');
  await waitFor('the renewal', async () => (await row(id)).state === 'active');
  await drain();
  expect((await row(id)).stopped_at).not.toBeNull();
  expect((await node(id))!.state).toBe('stopped');
  expect((await reconcileNodes(deps)).filter((c) => c.serviceId === id)).toEqual([]);
  expect(await told(id)).toEqual(expect.arrayContaining(['Start requested', 'Kept stopped, as it was stopped on request: start it to run it again']));

  // Expired, then extended: the same.
  await forceServiceState(s.deps.db, 'expired', 'id = $1', id);
  await addCredits(s.deps.db, u.id, 10, 'Top-up');
  const { error } = await u.client.rpc('extend_service_expiration', { p_service_id: id, p_product_id: TOWN_STAR, p_months: 1 });
  expect(error).toBeNull();
  await drain();
  expect(await row(id)).toMatchObject({ state: 'active', stopped_at: expect.any(Date) });
  expect((await node(id))!.state).toBe('stopped');

  await power(u, id, 'start');
  expect((await node(id))!.state).toBe('running');
  expect((await row(id)).stopped_at).toBeNull();
});
