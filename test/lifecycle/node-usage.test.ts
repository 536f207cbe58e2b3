import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobDeps } from '../../src/server/jobs/app-worker';
import type { JobDeps } from '../../src/server/jobs/task';
import { simulateOutage } from '../../src/server/provisioning/drivers/simulated';
import { installNode } from '../../src/server/provisioning/install-node';
import { sweepNodes } from '../../src/server/provisioning/node-monitor';
import { forceServiceState } from '../helpers/service-state';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, GALA_KEY, MASTER_NODE, LICENCE_KEY, TOWN_STAR, type TestUser } from '../helpers/users';

// What a node uses (issue 36, item 2; migration 0049) on the simulated engine, through the API as
// owners read it: the sweep's samples, their minutes and hours, who may read them, and what goes
// when. test/docker/monitor.test.ts samples a node on a real Swarm.

let s: TestServer;
let deps: JobDeps;
let owner: TestUser;
let stranger: TestUser;
let admin: TestUser;

beforeAll(async () => {
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'false', PROVISION_INSTALL_SECONDS: '0', PROVISION_DELETE_SECONDS: '0', INSTALL_SETTLE_SECONDS: '0' });
  deps = await createJobDeps(s.deps);
  owner = await createTestUser(s, { credits: 100 });
  stranger = await createTestUser(s, { credits: 100 });
  admin = await createTestUser(s, { admin: true });
});
afterAll(() => s.stop());

const sql = async <T>(text: string, params: unknown[] = []) => (await s.deps.db.query<T>(text, params)).rows;
type Point = {
  at: string;
  cpu_percent: number;
  memory_mib: number;
  memory_limit_mib: number | null;
  rx_bytes_per_second: number | null;
  tx_bytes_per_second: number | null;
};
const usage = (user: TestUser, id: string, range = '24h') => user.client.rpc('service_usage', { p_service_id: id, p_range: range });
const points = async (user: TestUser, id: string, range = '24h') => {
  const { data, error } = await usage(user, id, range);
  if (error) throw new Error(error.message);
  return data as Point[];
};
/** Hands record_node_usage samples as the sweep does. */
const record = (samples: object[]) => sql('select private.record_node_usage($1::jsonb)', [JSON.stringify(samples)]);

async function activeService(user: TestUser, name: string, product = TOWN_STAR, key = GALA_KEY): Promise<string> {
  const { data, error } = await user.client.rpc('create_service_securely', { p_name: name, p_description: null, p_api_key: key, p_product_id: product });
  if (error) throw error;
  const id = (data as { id: string }).id;
  await installNode(deps, id);
  return id;
}
/** A service whose simulated node is stopped: a sweep samples none of it, and only the test's records count. */
async function quietService(user: TestUser, name: string): Promise<string> {
  const id = await activeService(user, name);
  await sql(`update nodeharbor.simulated_nodes set state = 'stopped' where service_id = $1`, [id]);
  return id;
}

describe('the sweep', () => {
  it("records a running node's CPU, memory and network each minute and hour, and nothing of one that does not run", async () => {
    const id = await activeService(owner, 'busy');
    const down = await activeService(owner, 'down', MASTER_NODE, LICENCE_KEY);
    await simulateOutage(s.deps.db, down, 10);
    const first = await sweepNodes(deps);
    expect(first.usage).toBeGreaterThanOrEqual(1);
    // The next sweep a moment later: the network counters have grown, and give a rate.
    await sql(`update private.node_usage_counters set sampled_at = sampled_at - interval '30 seconds' where service_id = $1`, [id]);
    await sweepNodes(deps);

    // One minute's point, or two when the minute turned between the sweeps: the last has the rate.
    const minutes = await points(owner, id);
    expect(minutes.length === 1 || minutes.length === 2).toBe(true);
    const p = minutes.at(-1);
    expect(p!.cpu_percent).toBeGreaterThan(0);
    expect(p!.cpu_percent).toBeLessThanOrEqual(100);
    // Town Star's seeded limit is 1 GiB: the node uses some of it, never more.
    expect(p!.memory_limit_mib).toBe(1024);
    expect(p!.memory_mib).toBeGreaterThan(0);
    expect(p!.memory_mib).toBeLessThan(1024);
    expect(p!.rx_bytes_per_second).toBeGreaterThan(0);
    expect(p!.tx_bytes_per_second).toBeGreaterThan(0);
    expect(await sql('select sum(samples)::int as n from private.node_usage_minutes where service_id = $1', [id])).toEqual([{ n: 2 }]);

    const hours = await points(owner, id, '30d');
    expect(new Date(hours.at(-1)!.at).getUTCMinutes()).toBe(0);
    if (minutes.length === 1) expect(hours).toEqual([{ ...p, at: expect.any(String) }]);

    expect(await points(owner, down)).toEqual([]);
    expect(await points(owner, down, '30d')).toEqual([]);
  });
});

describe('service_usage', () => {
  it("answers the owner and an admin, and another user, a missing service or a deleted one as 'Service not found' (404)", async () => {
    const id = await activeService(owner, 'private');
    await sweepNodes(deps);
    expect((await points(owner, id)).length).toBe(1);
    expect(await points(admin, id)).toEqual(await points(owner, id));

    for (const [who, target] of [
      [stranger, id],
      [owner, '00000000-0000-4000-8000-0000000000ff'],
    ] as const) {
      const r = await usage(who, target);
      expect(r.data).toBeNull();
      expect(r.status).toBe(404);
      expect(r.error).toMatchObject({ code: 'PT404', message: 'Service not found' });
    }
    const bad = await usage(owner, id, '7d');
    expect(bad.status).toBe(400);
    expect(bad.error?.message).toBe('p_range must be 24h or 30d');

    const anon = await s.client().rpc('service_usage', { p_service_id: id, p_range: '24h' });
    expect(anon.data).toBeNull();
    expect(anon.status).toBe(401);

    await forceServiceState(s.deps.db, 'deleted', 'id = $1', id);
    expect((await usage(owner, id)).error).toMatchObject({ code: 'PT404', message: 'Service not found' });

    // Reused for a new node (deleted → installing, as create_service_securely reuses a purchased
    // service), it shows none of the last node's points.
    expect(await sql('select 1 from private.node_usage_minutes where service_id = $1', [id])).toHaveLength(1);
    await sql(`update private.services set state = 'installing' where id = $1`, [id]);
    expect(await points(owner, id)).toEqual([]);
    expect(await points(owner, id, '30d')).toEqual([]);
    expect(await sql('select 1 from private.node_usage_counters where service_id = $1', [id])).toEqual([]);
  });

  it('answers a service of its own that has no points yet with none (a machine node, a stopped one)', async () => {
    const id = await quietService(owner, 'quiet');
    await sweepNodes(deps);
    expect(await points(owner, id)).toEqual([]);
    expect(await points(owner, id, '30d')).toEqual([]);
  });
});

describe('record_node_usage', () => {
  const sample = (id: string, over: object = {}) => ({
    service_id: id,
    run: 'run-1',
    cpu_percent: 20,
    memory_bytes: 100 * 1048576,
    memory_limit_bytes: 512 * 1048576,
    rx_bytes: 1000,
    tx_bytes: 500,
    ...over,
  });
  const minuteRows = (id: string) =>
    sql<{ minute: Date; samples: number; cpu_percent: number; memory_mib: number; memory_limit_mib: number; rx: number | null; tx: number | null }>(
      `select minute, samples, cpu_percent, memory_mib, memory_limit_mib, rx_bytes_per_second as rx, tx_bytes_per_second as tx
         from private.node_usage_minutes where service_id = $1 order by minute`,
      [id],
    );
  const hourRows = (id: string) =>
    sql<{ hour: Date; minutes: number; cpu_percent: number; memory_mib: number }>(
      'select hour, minutes, cpu_percent, memory_mib from private.node_usage_hours where service_id = $1 order by hour',
      [id],
    );
  /** As if the last sample had been taken `seconds` earlier. */
  const backdate = (id: string, seconds: number) =>
    sql('update private.node_usage_counters set sampled_at = sampled_at - make_interval(secs => $2) where service_id = $1', [id, seconds]);

  it("averages two samples within a minute, takes the network's rate from the counters of the same run, and none across runs", async () => {
    const id = await quietService(owner, 'counted');
    await record([sample(id)]);
    // The first sample of a run has no rate: there is nothing to take it from.
    expect(await minuteRows(id)).toMatchObject([{ samples: 1, cpu_percent: 20, memory_mib: 100, memory_limit_mib: 512, rx: null, tx: null }]);
    await backdate(id, 100);
    await record([sample(id, { cpu_percent: 40, memory_bytes: 200 * 1048576, rx_bytes: 6000, tx_bytes: 1500 })]);
    const [m] = await minuteRows(id);
    // Unless the minute turned between the two calls, they share a row.
    if (m!.samples === 2) expect(m).toMatchObject({ cpu_percent: 30, memory_mib: 150 });
    const rated = (await minuteRows(id)).at(-1)!;
    // 5000 and 1000 bytes over the 100 s backdated, and the moment the calls took.
    expect(rated.rx! > 5000 / 110 && rated.rx! <= 50, `${rated.rx} B/s`).toBe(true);
    expect(rated.tx! > 1000 / 110 && rated.tx! <= 10, `${rated.tx} B/s`).toBe(true);

    // A new run's counters start again: no rate from the old run's, though they are smaller.
    await sql('delete from private.node_usage_minutes where service_id = $1', [id]);
    await backdate(id, 100);
    await record([sample(id, { run: 'run-2', rx_bytes: 100, tx_bytes: 50 })]);
    expect(await minuteRows(id)).toMatchObject([{ rx: null, tx: null }]);
    // Counters that went down within a run (an engine that reset them) give no rate either.
    await backdate(id, 100);
    await record([sample(id, { run: 'run-2', rx_bytes: 10, tx_bytes: 150 })]);
    const after = (await minuteRows(id)).at(-1);
    expect(after!.rx).toBeNull();
    expect(after!.tx! > 100 / 110 && after!.tx! <= 1, `${after!.tx} B/s`).toBe(true);
  });

  it("makes each node's hour the average of its minutes, whatever the other nodes'", async () => {
    const id = await quietService(owner, 'hourly');
    const other = await quietService(owner, 'other');
    // An earlier minute of this hour (the hour's first, which is this one when the hour has just begun).
    await sql(
      `insert into private.node_usage_minutes (service_id, minute, samples, cpu_percent, memory_mib, memory_limit_mib)
       values ($1, date_trunc('hour', now()), 1, 80, 300, 512) on conflict do nothing`,
      [id],
    );
    await record([sample(id, { cpu_percent: 10, memory_bytes: 100 * 1048576 }), sample(other, { cpu_percent: 99 })]);
    const minutes = await minuteRows(id);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const [hour] = await hourRows(id);
    expect(hour).toMatchObject({ minutes: minutes.length });
    expect(hour!.cpu_percent).toBeCloseTo(mean(minutes.map((m) => m.cpu_percent)), 3);
    expect(hour!.memory_mib).toBeCloseTo(mean(minutes.map((m) => m.memory_mib)), 3);
    expect((await hourRows(other))[0]!.cpu_percent).toBeCloseTo(99, 3);
  });

  it('drops minutes older than 24 hours and hours older than 30 days, keeping the rest', async () => {
    const id = await quietService(owner, 'pruned');
    await sql(
      `insert into private.node_usage_minutes (service_id, minute, cpu_percent, memory_mib)
       select $1, date_trunc('minute', now()) - make_interval(mins => m), 5, 50 from unnest(array[10, 23 * 60, 24 * 60 + 1, 3 * 24 * 60]) m`,
      [id],
    );
    await sql(
      `insert into private.node_usage_hours (service_id, hour, minutes, cpu_percent, memory_mib)
       select $1, date_trunc('hour', now()) - make_interval(hours => h), 60, 5, 50 from unnest(array[2, 29 * 24, 30 * 24 + 1, 60 * 24]) h`,
      [id],
    );
    // Any sweep prunes, with samples or without.
    await record([]);
    const ago = (d: Date) => Math.round((Date.now() - d.getTime()) / 60_000);
    expect((await minuteRows(id)).map((m) => ago(m.minute))).toEqual([23 * 60, 10].map((m) => expect.closeTo(m, -1)));
    // Whole hours before this one began (the hour under way is some minutes old).
    const hoursAgo = (d: Date) => Math.floor((Date.now() - d.getTime()) / 3_600_000);
    expect((await hourRows(id)).map((h) => hoursAgo(h.hour))).toEqual([29 * 24, 2]);
    // And the reader shows what is kept, oldest first.
    expect((await points(owner, id)).map((p) => ago(new Date(p.at)))).toEqual([23 * 60, 10].map((m) => expect.closeTo(m, -1)));
    expect(await points(owner, id, '30d')).toHaveLength(2);
  });

  it('drops the samples of a service that is not live, and of none at all', async () => {
    const id = await quietService(owner, 'gone');
    await forceServiceState(s.deps.db, 'failed', 'id = $1', id);
    await record([sample(id), sample('00000000-0000-4000-8000-0000000000fe')]);
    expect(await minuteRows(id)).toEqual([]);
    expect(await sql('select 1 from private.node_usage_counters where service_id = $1', [id])).toEqual([]);
  });
});
