import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { createJobDeps } from '../../src/server/jobs/app-worker';
import type { JobDeps } from '../../src/server/jobs/task';
import { simulateCrash, simulateOutage } from '../../src/server/provisioning/drivers/simulated';
import { installNode } from '../../src/server/provisioning/install-node';
import { sweepNodes } from '../../src/server/provisioning/node-monitor';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, GALA_KEY, TOWN_STAR, type TestUser } from '../helpers/users';
import { expectLedgerBalanced } from '../helpers/ledger';

// The admin's fleet view (issue 16): every node, its state, owner, host, last seen and restarts.

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

it("lets an admin retry another user's failed installation", async () => {
  const { error } = await admin.client.rpc('retry_service_installation', { p_service_id: ids['f-failed'] });
  expect(error).toBeNull();
  expect(((await fleet(admin, { p_state: 'installing' })).data as Row[]).map((r) => r.name).sort()).toEqual(['f-failed', 'f-installing']);
});
