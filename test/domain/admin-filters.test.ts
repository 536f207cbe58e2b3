import { afterAll, beforeAll, expect, it } from 'vitest';
import { createJobDeps } from '../../src/server/jobs/app-worker';
import { installNode } from '../../src/server/provisioning/install-node';
import { sweepNodes } from '../../src/server/provisioning/node-monitor';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, GALA_KEY, LICENCE_KEY, MASTER_NODE, TOWN_STAR, type TestUser } from '../helpers/users';

// The admin's fleet and user list filtered on the server (issue 36, item 7; migration 0052): both
// page there, so the filter must come before the page is cut, and the total must count what matched.

let s: TestServer;
let admin: TestUser;
let ann: TestUser;
let bo: TestUser;
const hosts: Record<string, string> = {};

type Row = { name: string; email: string; product: string; host: string | null; total_count: number };

beforeAll(async () => {
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'false', PROVISION_INSTALL_SECONDS: '0', INSTALL_SETTLE_SECONDS: '0' });
  const deps = await createJobDeps(s.deps);
  admin = await createTestUser(s, { admin: true, fullName: 'Ada Admin' });
  ann = await createTestUser(s, { email: `ann-${Date.now()}@nodeharbor.test`, fullName: 'Ann Quinlan', credits: 100 });
  bo = await createTestUser(s, { email: `bo-${Date.now()}@nodeharbor.test`, fullName: 'Bo 100%_Sure', credits: 100 });
  for (const [user, name, key, product] of [
    [ann, 'ann-town', GALA_KEY, TOWN_STAR],
    [ann, 'ann-master', LICENCE_KEY, MASTER_NODE],
    [bo, 'bo-town', GALA_KEY, TOWN_STAR],
  ] as const) {
    const { data, error } = await user.client.rpc('create_service_securely', { p_name: name, p_description: null, p_api_key: key, p_product_id: product });
    if (error) throw error;
    await installNode(deps, (data as { id: string }).id);
  }
  await sweepNodes(deps);
  const { rows } = await s.deps.db.query<{ name: string; host: string }>(
    'select s.name, n.host from private.services s join private.node_status n on n.service_id = s.id',
  );
  for (const r of rows) hosts[r.name] = r.host;
});
afterAll(() => s.stop());

const names = async (args: Record<string, unknown>) => {
  const { data, error } = await admin.client.rpc('admin_fleet', { p_sort: 'name', p_descending: false, ...args });
  expect(error).toBeNull();
  return (data as Row[]).map((r) => [r.name, Number(r.total_count)]);
};

it("filters the fleet by an owner's e-mail, a service's name, a product or a host, in any case", async () => {
  expect(await names({ p_search: ann.email.toUpperCase() })).toEqual([
    ['ann-master', 2],
    ['ann-town', 2],
  ]);
  expect(await names({ p_search: 'bo-TOWN' })).toEqual([['bo-town', 1]]);
  expect(await names({ p_search: 'master node' })).toEqual([['ann-master', 1]]);
  // A host names every node on it, whoever owns it.
  const host = hosts['bo-town']!;
  const onHost = Object.keys(hosts)
    .filter((n) => hosts[n] === host)
    .sort();
  expect(await names({ p_search: host })).toEqual(onHost.map((n) => [n, onHost.length]));
  expect(await names({ p_search: '  ' })).toHaveLength(3);
  expect(await names({ p_search: 'nothing-like-it' })).toEqual([]);
});

it('filters before it pages, with the state filter, and counts what matched', async () => {
  expect(await names({ p_search: 'town', p_limit: 1 })).toEqual([['ann-town', 2]]);
  expect(await names({ p_search: 'town', p_limit: 1, p_offset: 1 })).toEqual([['bo-town', 2]]);
  expect(await names({ p_search: 'town', p_state: 'offline' })).toEqual([]);
  expect(await names({ p_search: 'town', p_state: 'online' })).toEqual([
    ['ann-town', 2],
    ['bo-town', 2],
  ]);
});

it('matches the text as written: % and _ are no wildcards, and SQL in it is only text', async () => {
  expect(await names({ p_search: '%' })).toEqual([]);
  expect(await names({ p_search: 'ann_town' })).toEqual([]);
  expect(await names({ p_search: "'; drop table private.services; --" })).toEqual([]);
  expect((await s.deps.db.query('select count(*)::int as n from private.services')).rows[0]).toEqual({ n: 3 });
  // Still an admin's alone.
  expect((await ann.client.rpc('admin_fleet', { p_search: 'town' })).error).toMatchObject({ code: '42501' });
});

it('searches users by full name as well as by e-mail, counting what matched', async () => {
  const users = async (search: string) => {
    const { data, error } = await admin.client.rpc('get_user_stats', { p_search: search, p_limit: 20, p_offset: 0 });
    expect(error).toBeNull();
    return (data as { email: string; total_count: number }[]).map((r) => [r.email, r.total_count]);
  };
  expect(await users('quinlan')).toEqual([[ann.email, 1]]);
  expect(await users(ann.email.slice(0, 10))).toEqual([[ann.email, 1]]);
  // A name's % and _ are themselves.
  expect(await users('100%_sure')).toEqual([[bo.email, 1]]);
  expect(await users('100%%sure')).toEqual([]);
  expect((await ann.client.rpc('get_user_stats', { p_search: 'quinlan' })).error).toMatchObject({ code: '42501' });
});
