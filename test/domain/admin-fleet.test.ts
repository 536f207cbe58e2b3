import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createJobDeps } from '../../src/server/jobs/app-worker';
import type { JobDeps } from '../../src/server/jobs/task';
import { simulateCrash, simulateOutage } from '../../src/server/provisioning/drivers/simulated';
import { installNode } from '../../src/server/provisioning/install-node';
import { sweepNodes } from '../../src/server/provisioning/node-monitor';
import { failedInstallMessages } from '../../src/shared/failed-install';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, GALA_KEY, LICENCE_KEY, MASTER_NODE, TOWN_STAR, TOWN_STAR_QUARTERLY, type TestUser } from '../helpers/users';
import { expectLedgerBalanced } from '../helpers/ledger';
import { forceServiceState } from '../helpers/service-state';

// The admin's fleet view (issue 16): every node, its state, owner, host, last seen and restarts,
// and what it earns a month less what its server costs (issue 35, item 8; migration 0044).

let s: TestServer;
let deps: JobDeps;
let admin: TestUser;
let owner: TestUser;
const ids: Record<string, string> = {};

type Row = { name: string; email: string; state: string; host: string | null; restarts_24h: number; total_count: number };

beforeAll(async () => {
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'false', PROVISION_INSTALL_SECONDS: '0', INSTALL_SETTLE_SECONDS: '0' });
  deps = await createJobDeps(s.deps);
  admin = await createTestUser(s, { admin: true });
  owner = await createTestUser(s, { credits: 100 });
  for (const name of ['f-online', 'f-crashed', 'f-offline', 'f-failed', 'f-installing']) {
    const { data, error } = await owner.client.rpc('create_service_securely', {
      p_name: name,
      p_description: null,
      p_api_key: GALA_KEY,
      p_product_id: TOWN_STAR,
    });
    if (error) throw error;
    ids[name] = (data as { id: string }).id;
  }
  for (const name of ['f-online', 'f-crashed', 'f-offline']) await installNode(deps, ids[name]!);
  await s.deps.db.query(`select private.fail_service_installation($1, 'No such image: x')`, [ids['f-failed']]);
  await sweepNodes(deps);
  await simulateCrash(s.deps.db, ids['f-crashed']!);
  await simulateOutage(s.deps.db, ids['f-offline']!, 30);
  await sweepNodes(deps);
});
// Money moves here: every balance stays its ledger's sum.
afterEach(() => expectLedgerBalanced(s.deps.db));
afterAll(() => s.stop());

const fleet = (user: TestUser, args: Record<string, unknown> = {}) => user.client.rpc('admin_fleet', args);

it('lists every node with its state, owner, product, host and restarts, with counts by state', async () => {
  const { data, error } = await fleet(admin, { p_sort: 'name', p_descending: false });
  expect(error).toBeNull();
  const rows = (data as Row[]).map(({ name, email, state, restarts_24h, total_count }) => ({ name, email, state, restarts_24h, total_count }));
  expect(rows).toEqual([
    { name: 'f-crashed', email: owner.email, state: 'restarting', restarts_24h: 1, total_count: 5 },
    { name: 'f-failed', email: owner.email, state: 'failed', restarts_24h: 0, total_count: 5 },
    { name: 'f-installing', email: owner.email, state: 'installing', restarts_24h: 0, total_count: 5 },
    { name: 'f-offline', email: owner.email, state: 'offline', restarts_24h: 0, total_count: 5 },
    { name: 'f-online', email: owner.email, state: 'online', restarts_24h: 0, total_count: 5 },
  ]);
  expect((data as Row[]).find((r) => r.name === 'f-online')).toMatchObject({ product: 'Town Star', host: expect.stringMatching(/^simulated-host-\d$/) });
  const counts = await admin.client.rpc('admin_fleet_counts');
  expect(counts.data).toEqual([
    { state: 'failed', count: 1 },
    { state: 'installing', count: 1 },
    { state: 'offline', count: 1 },
    { state: 'online', count: 1 },
    { state: 'restarting', count: 1 },
  ]);
});

it('filters by state, sorts by restarts, and pages', async () => {
  expect(((await fleet(admin, { p_state: 'offline' })).data as Row[]).map((r) => r.name)).toEqual(['f-offline']);
  expect(((await fleet(admin, { p_sort: 'restarts' })).data as Row[])[0]!.name).toBe('f-crashed');
  const page2 = (await fleet(admin, { p_sort: 'name', p_descending: false, p_limit: 2, p_offset: 2 })).data as Row[];
  expect(page2.map((r) => [r.name, r.total_count])).toEqual([
    ['f-installing', 5],
    ['f-offline', 5],
  ]);
});

it('refuses anyone but an admin, and arguments outside its lists', async () => {
  const refused = await fleet(owner);
  expect(refused.error).toMatchObject({ code: '42501', message: 'Only admins can see the fleet' });
  expect((await owner.client.rpc('admin_fleet_counts')).error).toMatchObject({ code: '42501' });
  expect((await s.client().rpc('admin_fleet')).error).not.toBeNull();
  // The sort names a column from a fixed list: SQL in it is refused, not run.
  expect((await fleet(admin, { p_sort: 'name; drop table private.services' })).error?.message).toBe('Unknown sort: name; drop table private.services');
  expect((await fleet(admin, { p_state: 'sleeping' })).error?.message).toBe('Unknown state: sleeping');
  expect((await fleet(admin, { p_limit: 501 })).error?.message).toBe('p_limit must be 1 to 500 and p_offset at least 0');
  expect((await s.deps.db.query('select count(*)::int as n from private.services')).rows[0]).toEqual({ n: 5 });
});

it("leaves a failed installation whose charge went back to its owner to the owner's Retry, which the fleet then shows", async () => {
  // An admin's retry would buy the period again with the customer's credit, unasked (migration 0050).
  const refused = await admin.client.rpc('retry_service_installation', { p_service_id: ids['f-failed'] });
  expect(refused.error).toMatchObject({ code: '42501', message: failedInstallMessages.adminRetryRefunded });
  // The fleet says so, and shows no Retry for it.
  expect(((await fleet(admin, { p_state: 'failed' })).data as (Row & { install_refunded: boolean })[]).map((r) => [r.name, r.install_refunded])).toEqual([
    ['f-failed', true],
  ]);
  const { error } = await owner.client.rpc('retry_service_installation', { p_service_id: ids['f-failed'], p_charge: 10 });
  expect(error).toBeNull();
  expect(((await fleet(admin, { p_state: 'installing' })).data as Row[]).map((r) => r.name).sort()).toEqual(['f-failed', 'f-installing']);
});

describe("each node's margin a month (issue 35, item 8)", () => {
  /** The seeded cost of a Town Star server (Hetzner's cx23, db/seed/0002_product_costs.sql). */
  const CX23 = 4.81;
  let payer: TestUser;
  const margins = async (args: Record<string, unknown> = {}) =>
    ((await fleet(admin, { p_sort: 'name', p_descending: false, ...args })).data as (Row & { monthly_margin: number | null })[]).map((r) => [
      r.name,
      r.monthly_margin,
    ]);

  beforeAll(async () => {
    payer = await createTestUser(s, { credits: 100 });
    const order = async (name: string, product: string) => {
      const { data, error } = await payer.client.rpc('create_service_securely', {
        p_name: name,
        p_description: null,
        p_api_key: product === MASTER_NODE ? LICENCE_KEY : GALA_KEY,
        p_product_id: product,
      });
      if (error) throw error;
      return (data as { id: string }).id;
    };
    const quarterly = await order('m-quarterly', TOWN_STAR_QUARTERLY);
    await installNode(deps, quarterly);
    await forceServiceState(s.deps.db, 'suspended', 'id = $1', await order('m-suspended', TOWN_STAR), `terminates_at = now() + interval '14 days'`);
    await forceServiceState(s.deps.db, 'expired', 'id = $1', await order('m-expired', TOWN_STAR));
    await order('m-master', MASTER_NODE);
    await s.deps.db.query(`select private.fail_service_installation($1, 'No cx23 server is available')`, [await order('m-failed', TOWN_STAR)]);
  });

  it('is the price a month less the cost while the service pays, the cost alone while it does not, and none without a cost or a node', async () => {
    expect((await s.deps.db.query(`select product_id, monthly_cost_usd from private.product_costs order by product_id`)).rows).toEqual([
      { product_id: TOWN_STAR, monthly_cost_usd: '4.81' },
      { product_id: TOWN_STAR_QUARTERLY, monthly_cost_usd: '4.81' },
    ]);
    expect(await margins()).toEqual([
      // Town Star, $10 a month: active, restarting, offline, installing again, installing.
      ['f-crashed', 5.19],
      ['f-failed', 5.19],
      ['f-installing', 5.19],
      ['f-offline', 5.19],
      ['f-online', 5.19],
      // Not paying: Hetzner bills a powered-off server in full.
      ['m-expired', -CX23],
      // Failed: no node, so no server.
      ['m-failed', null],
      // The Master Node runs on Swarm: no cost is recorded for it.
      ['m-master', null],
      // $30 every three months: $10 a month.
      ['m-quarterly', Math.round((30 / 3 - CX23) * 100) / 100],
      ['m-suspended', -CX23],
    ]);
    // The user page says the same of each service.
    const { data, error } = await admin.client.rpc('admin_user', { p_user_id: payer.id });
    expect(error).toBeNull();
    const services = (data as { services: { name: string; monthly_margin: number | null }[] }).services;
    expect(Object.fromEntries(services.map((x) => [x.name, x.monthly_margin]))).toEqual({
      'm-quarterly': 5.19,
      'm-suspended': -4.81,
      'm-expired': -4.81,
      'm-master': null,
      'm-failed': null,
    });
  });

  it('follows the cost an operator records, in cents, and counts a renewal of days or years in months', async () => {
    await s.deps.db.query(`update private.product_costs set monthly_cost_usd = 7.333, updated_at = now() where product_id = $1`, [TOWN_STAR_QUARTERLY]);
    // Kept in cents: 7.33, so $10 a month less it.
    expect((await margins()).filter(([n]) => n === 'm-quarterly' || n === 'f-online')).toEqual([
      ['f-online', 5.19],
      ['m-quarterly', 2.67],
    ]);
    await s.deps.db.query(`update private.product_costs set monthly_cost_usd = 4.81, updated_at = now() where product_id = $1`, [TOWN_STAR_QUARTERLY]);
    const months = async (interval: string | null) =>
      (await s.deps.db.query<{ m: string | null }>(`select private.months_in($1)::text as m`, [interval])).rows[0]!.m;
    expect([await months('1 MONTH'), await months('3 MONTH'), await months('3 MONTHS'), await months('1 YEAR'), await months('2 YEARS')]).toEqual([
      '1',
      '3',
      '3',
      '12',
      '24',
    ]);
    expect(Number(await months('15 DAYS'))).toBe(0.5);
    expect(Number(await months('1 DAY')) * 30).toBeCloseTo(1, 10);
    expect(await months(null)).toBeNull();
  });

  it('sorts by margin, largest first, with the services without one last either way', async () => {
    const descending = await margins({ p_sort: 'margin', p_descending: true });
    expect(descending.map(([, m]) => m)).toEqual([5.19, 5.19, 5.19, 5.19, 5.19, 5.19, -4.81, -4.81, null, null]);
    const ascending = await margins({ p_sort: 'margin', p_descending: false });
    expect(ascending.map(([, m]) => m)).toEqual([-4.81, -4.81, 5.19, 5.19, 5.19, 5.19, 5.19, 5.19, null, null]);
    expect(
      ascending
        .slice(0, 2)
        .map(([n]) => n)
        .sort(),
    ).toEqual(['m-expired', 'm-suspended']);
  });

  it('keeps the costs from everyone but the database: no table of the API, no schema the API exposes', async () => {
    for (const [who, client] of [
      ['anon', s.client()],
      ['a customer', owner.client],
      ['an admin', admin.client],
    ] as const) {
      const table = await client.from('product_costs' as 'products').select('*');
      expect([who, table.status, table.error?.code]).toEqual([who, 404, 'PGRST205']);
      const hidden = await client
        .schema('private' as 'public')
        .from('product_costs')
        .select('*');
      expect([who, hidden.status, hidden.error?.code]).toEqual([who, 406, 'PGRST106']);
      expect((await client.rpc('months_in' as 'admin_fleet', { p_interval: '1 MONTH' })).error, who).not.toBeNull();
    }
    // Whatever a request runs as: no privilege on the table for the API's roles.
    const { rows } = await s.deps.db.query(
      `select r as role, has_table_privilege(r, 'private.product_costs', 'select') as reads, has_table_privilege(r, 'private.product_costs', 'update') as writes
         from unnest(array['anon', 'authenticated', 'service_role']) r`,
    );
    expect(rows).toEqual([
      { role: 'anon', reads: false, writes: false },
      { role: 'authenticated', reads: false, writes: false },
      { role: 'service_role', reads: false, writes: false },
    ]);
    // A product's public row says nothing of its cost.
    const { data } = await s.client().from('products').select('*').eq('id', TOWN_STAR).single();
    expect(Object.keys(data as object).filter((k) => /cost|margin/.test(k))).toEqual([]);
  });
});
