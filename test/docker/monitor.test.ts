import { afterAll, beforeAll, expect, it } from 'vitest';
import { nodeEventText, REDACTED } from '../../src/shared/node-health';
import { createJobDeps } from '../../src/server/jobs/app-worker';
import type { JobDeps } from '../../src/server/jobs/task';
import { sweepNodes } from '../../src/server/provisioning/node-monitor';
import { startLifecycleServer, waitFor } from '../lifecycle/helpers';
import { invokeFunction } from '../helpers/functions';
import { forceServiceState } from '../helpers/service-state';
import { createTestUser, LICENCE_KEY, MASTER_NODE, TOWN_STAR, type TestUser } from '../helpers/users';
import { killNode, removeOurs } from './cli';
import { townStarOnSwarm } from './lifecycle-nodes';
import { ensureNodeImage, NODE_IMAGE } from './node-image';

// Watching real nodes on a real Swarm (issue 16), through the API as owners read them: the same
// what-must-show as test/lifecycle/node-monitor.test.ts on the simulated engine.

let s: Awaited<ReturnType<typeof startLifecycleServer>>;
let deps: JobDeps;
let owner: TestUser;
let stranger: TestUser;
const created: string[] = [];
// The test image prints a key that starts with LEAK in three forms, as a careless node would.
const LEAKY_KEY = `LEAK+/${'A'.repeat(38)}=`;

beforeAll(async () => {
  ensureNodeImage();
  s = await startLifecycleServer({
    PROVISIONER: 'docker',
    NODE_IMAGES: JSON.stringify({ TOWNSTAR: NODE_IMAGE, MASTERNODE: NODE_IMAGE }),
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
  stranger = await createTestUser(s, { credits: 100 });
});
afterAll(async () => {
  if (s) {
    await forceServiceState(s.deps.db, 'failed', 'id = any($1::uuid[])', created);
    await s.stop();
  }
  removeOurs(created);
});

const sql = async <T>(text: string, params: unknown[] = []) => (await s.deps.db.query<T>(text, params)).rows;
/**
 * As if `seconds` had passed since the last sweep, without waiting for them: the monitor counts
 * the time between two sweeps from private.node_monitor.swept_at to the next sweep's now().
 */
const timePasses = (seconds: number) => sql('update private.node_monitor set swept_at = swept_at - make_interval(secs => $1)', [seconds]);

async function activeNode(name: string, product: string, key: string): Promise<string> {
  const { data, error } = await owner.client.rpc('create_service_securely', { p_name: name, p_description: null, p_api_key: key, p_product_id: product });
  if (error) throw error;
  const id = (data as { id: string }).id;
  created.push(id);
  await waitFor(
    'the service to be active',
    async () => (await sql<{ state: string }>('select state::text from private.services where id = $1', [id]))[0]!.state === 'active',
    90_000,
  );
  return id;
}
const nodeState = async (id: string) => (await owner.client.from('services').select('node_state').eq('id', id).single()).data?.node_state as string;
const today = async (user: TestUser, id: string) =>
  ((await user.client.from('service_uptime').select('seconds_online, meets_threshold').eq('service_id', id)).data ?? [])[0] as
    { seconds_online: number; meets_threshold: boolean | null } | undefined;

it('sees a killed container restarting, then online, with a readable event; uptime grows and the threshold flips', async () => {
  const id = await activeNode('watched', MASTER_NODE, LICENCE_KEY);
  await sql('update public.products set uptime_threshold_seconds = 3 where id = $1', [MASTER_NODE]);
  try {
    await sweepNodes(deps);
    expect(await nodeState(id)).toBe('online');
    await timePasses(1.2);
    await sweepNodes(deps);
    const early = await today(owner, id);
    expect(early?.seconds_online).toBeGreaterThanOrEqual(1);
    expect(early?.meets_threshold).toBe(false);
    await timePasses(2.5);
    await sweepNodes(deps);
    const later = await today(owner, id);
    expect(later!.seconds_online).toBeGreaterThan(early!.seconds_online);
    expect(later?.meets_threshold).toBe(true);
  } finally {
    await sql('update public.products set uptime_threshold_seconds = 28800 where id = $1', [MASTER_NODE]);
  }

  killNode(id);
  // Within Swarm's 5 s restart delay (the first sweeps after the kill; more time only helps a loaded machine).
  await waitFor(
    'the monitor to see it restarting',
    async () => {
      await sweepNodes(deps);
      return (await nodeState(id)) === 'restarting';
    },
    10_000,
  );
  await waitFor(
    'the monitor to see it online again',
    async () => {
      await sweepNodes(deps);
      return (await nodeState(id)) === 'online';
    },
    60_000,
  );
  const { data } = await owner.client.from('service_events').select('event, detail').eq('service_id', id).like('event', 'node%').order('id');
  const texts = (data as { event: string; detail: Record<string, unknown> }[]).map((e) => nodeEventText(e.event, e.detail));
  expect(texts).toEqual(['Node online', 'Node restarted (exit code 137)', 'Node back online']);
});

it("redacts the key from the node's logs in every form it prints, and tells another user nothing", async () => {
  const id = await activeNode('leaky', TOWN_STAR, LEAKY_KEY);
  const r = await waitFor(
    'the node to print its debug lines',
    async () => {
      const got = await invokeFunction(owner.client, 'node-logs', { service_id: id });
      return (got.body.lines as string[] | undefined)?.some((l) => l.includes('debug key_url=')) && got;
    },
    30_000,
  );
  expect(r.status).toBe(200);
  const lines = r.body.lines as string[];
  for (const form of ['key', 'key_b64', 'key_url']) expect(lines.some((l) => l.endsWith(`debug ${form}=${REDACTED}`))).toBe(true);
  const text = lines.join('\n');
  for (const leaked of [LEAKY_KEY, Buffer.from(LEAKY_KEY).toString('base64').replace(/=+$/, ''), encodeURIComponent(LEAKY_KEY)])
    expect(text).not.toContain(leaked);

  await sweepNodes(deps);
  await timePasses(1.1);
  await sweepNodes(deps);
  expect(await today(owner, id)).toBeDefined();
  expect(await invokeFunction(stranger.client, 'node-logs', { service_id: id })).toEqual({ status: 404, body: { error: 'Service not found' } });
  expect((await stranger.client.from('services').select('id').eq('id', id)).data).toEqual([]);
  expect((await stranger.client.from('service_uptime').select('*').eq('service_id', id)).data).toEqual([]);
  expect((await stranger.client.from('service_events').select('id').eq('service_id', id)).data).toEqual([]);
});

it("records a running node's CPU and memory from the engine, which its owner reads and another user cannot (issue 36, item 2)", async () => {
  const id = await activeNode('measured', MASTER_NODE, LICENCE_KEY);
  type Point = { cpu_percent: number; memory_mib: number; memory_limit_mib: number | null };
  const points = await waitFor(
    'a usage point from the engine',
    async () => {
      await sweepNodes(deps);
      const { data, error } = await owner.client.rpc('service_usage', { p_service_id: id, p_range: '24h' });
      if (error) throw new Error(error.message);
      return (data as Point[]).length > 0 && (data as Point[]);
    },
    60_000,
  );
  const { mb } = (await sql<{ mb: number }>('select node_memory_mb as mb from public.products where id = $1', [MASTER_NODE]))[0]!;
  const p = points.at(-1)!;
  // The busybox node idles: some memory, a little CPU at most, within the limits Swarm was given.
  expect(p.memory_limit_mib).toBe(mb);
  expect(p.memory_mib > 0 && p.memory_mib <= mb, `${p.memory_mib} MiB of ${mb}`).toBe(true);
  expect(p.cpu_percent >= 0 && p.cpu_percent <= 100, `${p.cpu_percent}% of its CPU limit`).toBe(true);
  const hours = (await owner.client.rpc('service_usage', { p_service_id: id, p_range: '30d' })).data as Point[];
  expect(hours.length).toBeGreaterThanOrEqual(1);

  const theirs = await stranger.client.rpc('service_usage', { p_service_id: id, p_range: '24h' });
  expect(theirs.status).toBe(404);
  expect(theirs.error?.message).toBe('Service not found');
});
