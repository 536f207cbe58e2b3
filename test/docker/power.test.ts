import { beforeAll, expect, it } from 'vitest';
import { createJobDeps } from '../../src/server/jobs/app-worker';
import type { JobDeps } from '../../src/server/jobs/task';
import { sweepNodes } from '../../src/server/provisioning/node-monitor';
import { reconcileNodes } from '../../src/server/provisioning/reconciler';
import { queueIsIdle, startLifecycleServer, waitFor } from '../lifecycle/helpers';
import { createTestUser, GALA_KEY, TOWN_STAR, type TestUser } from '../helpers/users';
import { docker, dockerJson, swarmName } from './cli';
import { removeEachTestsNodes, serviceState, townStarOnSwarm } from './lifecycle-nodes';
import { ensureNodeImage, NODE_IMAGE } from './node-image';

// Restart, Stop and Start (issue 36, item 1) on a real Swarm, asked through the owner's RPC and
// carried out by the app's own worker: a restart is a new task, a stop is 0 replicas that the
// monitor calls Stopped with no alert and the reconciler leaves alone, and a start is 1 again.

let s: Awaited<ReturnType<typeof startLifecycleServer>>;
let deps: JobDeps;
let owner: TestUser;
const created: string[] = [];

beforeAll(async () => {
  ensureNodeImage();
  s = await startLifecycleServer({
    PROVISIONER: 'docker',
    NODE_IMAGES: JSON.stringify({ TOWNSTAR: NODE_IMAGE }),
    INSTALL_SETTLE_SECONDS: '1',
    INSTALL_TIMEOUT_SECONDS: '90',
    // The tests sweep and reconcile themselves.
    RECONCILE_INTERVAL_SECONDS: '86400',
    NODE_MONITOR_INTERVAL_SECONDS: '120',
    WORKER_POLL_MS: '100',
  });
  deps = await createJobDeps(s.deps);
  await townStarOnSwarm(s.deps.db);
  owner = await createTestUser(s, { credits: 100 });
});
removeEachTestsNodes(() => s, created);

const sql = <T>(text: string, params: unknown[] = []) => s.deps.db.query<T>(text, params).then((r) => r.rows);
type SwarmService = { Spec: { Mode: { Replicated: { Replicas: number } }; TaskTemplate: { ForceUpdate?: number } } };
const spec = (id: string) => dockerJson<SwarmService[]>('service', 'inspect', swarmName(id))[0]!.Spec;
/** The node's tasks that run now, as an operator lists them. */
const runningTasks = (id: string) =>
  docker('service', 'ps', '-q', '--filter', 'desired-state=running', swarmName(id))
    .split('\n')
    .filter(Boolean)
    .filter((task) => dockerJson<{ Status: { State: string } }[]>('inspect', task)[0]!.Status.State === 'running');
const nodeState = async (id: string) =>
  ((await owner.client.from('services').select('node_state').eq('id', id).single()).data as { node_state: string }).node_state;
async function act(id: string, action: 'restart' | 'stop' | 'start') {
  const { error } = await owner.client.rpc('service_power_action', { p_service_id: id, p_action: action });
  expect(error).toBeNull();
  await waitFor(`the ${action} job`, () => queueIsIdle(s.deps.db), 60_000);
}

it('restarts a node in a new task, stops it to 0 replicas with no alert and keeps it there, and starts it again', async () => {
  const { data, error } = await owner.client.rpc('create_service_securely', {
    p_name: 'powered',
    p_description: null,
    p_api_key: GALA_KEY,
    p_product_id: TOWN_STAR,
  });
  if (error) throw error;
  const id = (data as { id: string }).id;
  created.push(id);
  await waitFor('the service to be active', async () => (await serviceState(s.deps.db, id)) === 'active', 90_000);
  const [first] = await waitFor('its task to run', async () => runningTasks(id).length === 1 && runningTasks(id), 60_000);
  await sweepNodes(deps);

  // Restart: Swarm's forced update, one new task in place of the old one.
  await act(id, 'restart');
  expect(spec(id).TaskTemplate.ForceUpdate).toBe(1);
  const [second] = await waitFor('a new task to run', async () => runningTasks(id).length === 1 && runningTasks(id)[0] !== first && runningTasks(id), 60_000);
  expect(second).not.toBe(first);
  await waitFor('the monitor to see it online', async () => {
    await sweepNodes(deps);
    return (await nodeState(id)) === 'online';
  });
  // The owner's restart is no crash.
  expect(await sql(`select 1 from public.service_events where service_id = $1 and event = 'node_restarted'`, [id])).toEqual([]);

  // Stop: 0 replicas, nothing runs, and the monitor says Stopped.
  await act(id, 'stop');
  expect(spec(id).Mode.Replicated.Replicas).toBe(0);
  await waitFor('its task to end', async () => runningTasks(id).length === 0, 60_000);
  await sweepNodes(deps);
  expect(await nodeState(id)).toBe('stopped');
  // Two hours later, well past any alert delay: no incident, no mail, nothing for the reconciler.
  await sql(`update private.node_monitor set swept_at = now() - interval '2 hours'`);
  const { alerts } = await sweepNodes(deps);
  expect(alerts.filter((a) => a.service_id === id)).toEqual([]);
  expect(await sql('select id from private.node_incidents where service_id = $1', [id])).toEqual([]);
  expect(await sql(`select subject from nodeharbor.outbox where to_address = $1 and subject = 'Your node powered is offline'`, [owner.email])).toEqual([]);
  expect((await reconcileNodes(deps)).filter((c) => c.serviceId === id)).toEqual([]);
  expect(spec(id).Mode.Replicated.Replicas).toBe(0);
  expect(await nodeState(id)).toBe('stopped');

  // Start: 1 replica, running again.
  await act(id, 'start');
  expect(spec(id).Mode.Replicated.Replicas).toBe(1);
  await waitFor('a task to run again', async () => runningTasks(id).length === 1, 60_000);
  await waitFor('the monitor to see it online again', async () => {
    await sweepNodes(deps);
    return (await nodeState(id)) === 'online';
  });
  const { data: told } = await owner.client.from('service_events').select('event').eq('service_id', id).like('event', 'power%').order('id');
  expect(told).toEqual([{ event: 'power_restart' }, { event: 'power_stop' }, { event: 'power_start' }]);
});
