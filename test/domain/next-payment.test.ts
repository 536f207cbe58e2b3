import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';
import { forceServiceState } from '../helpers/service-state';
import { createTestUser, GALA_KEY, LICENCE_KEY, MASTER_NODE, TOWN_STAR, TOWN_STAR_QUARTERLY, type TestUser } from '../helpers/users';
import { expectLedgerBalanced } from '../helpers/ledger';

// get_next_payment: what the overview's Next Payment card shows.

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
});
// Money moves here: every balance stays its ledger's sum.
afterEach(() => expectLedgerBalanced(s.deps.db));
afterAll(() => s.stop());

async function service(u: TestUser, name: string, product: string, renewsAt: string, state: 'active' | 'expired' | 'installing' | 'suspended' = 'active') {
  const { data, error } = await u.client.rpc('create_service_securely', {
    p_name: name,
    p_description: null,
    p_api_key: product === MASTER_NODE ? LICENCE_KEY : GALA_KEY,
    p_product_id: product,
  });
  if (error) throw error;
  const id = (data as { id: string }).id;
  // A suspended service carries the day it is terminated.
  const terminates = state === 'suspended' ? `, terminates_at = now() + interval '14 days'` : '';
  await forceServiceState(s.deps.db, state, 'id = $1', id, `renews_at = '${renewsAt}'${terminates}`);
  return id;
}
const next = async (u: TestUser) => {
  const { data, error } = await u.client.rpc('get_next_payment');
  expect(error).toBeNull();
  return data as unknown[];
};

it('answers the earliest renewal of an active service on a paid renewing plan, with its price', async () => {
  const u = await createTestUser(s, { credits: 100 });
  expect(await next(u)).toEqual([]);
  await service(u, 'monthly', TOWN_STAR, '2027-03-01T00:00:00Z');
  const quarterly = await service(u, 'quarterly', TOWN_STAR_QUARTERLY, '2027-02-01T00:00:00Z');
  expect(await next(u)).toEqual([{ service_id: quarterly, service_name: 'quarterly', renews_at: '2027-02-01T00:00:00+00:00', amount: 30, suspended: false }]);

  // Neither an expired nor an installing service renews, nor a one-time one; a free renewal costs nothing.
  await service(u, 'expired', MASTER_NODE, '2027-01-01T00:00:00Z', 'expired');
  await service(u, 'installing', MASTER_NODE, '2027-01-02T00:00:00Z', 'installing');
  const planless = await service(u, 'one-time', MASTER_NODE, '2027-01-03T00:00:00Z');
  await s.deps.db.query('update private.services set renews_at = null where id = $1', [planless]);
  await s.deps.db.query(`update public.products set price = 0 where id = $1`, [MASTER_NODE]);
  const free = await service(u, 'free', MASTER_NODE, '2027-01-04T00:00:00Z');
  try {
    expect(await next(u)).toEqual([expect.objectContaining({ service_id: quarterly })]);
  } finally {
    await s.deps.db.query(`update public.products set price = 3 where id = $1`, [MASTER_NODE]);
  }
  expect(await next(u)).toEqual([expect.objectContaining({ service_id: free, amount: 3 })]);

  // A plan taken off sale still renews, so it still counts; another owner's services never do.
  await s.deps.db.query('update public.products set is_active = false where id = $1', [MASTER_NODE]);
  try {
    expect(await next(u)).toEqual([expect.objectContaining({ service_id: free, amount: 3 })]);
    expect(await next(await createTestUser(s))).toEqual([]);
  } finally {
    await s.deps.db.query('update public.products set is_active = true where id = $1', [MASTER_NODE]);
  }
});

it('refuses a caller who is not signed in', async () => {
  const { data, error, status } = await s.client().rpc('get_next_payment');
  expect(status).toBe(401);
  expect(error).not.toBeNull();
  expect(data).toBeNull();
});

it('answers a suspended service first: its missed renewal is due now', async () => {
  const u = await createTestUser(s, { credits: 100 });
  await service(u, 'soon', TOWN_STAR, '2026-01-02T00:00:00Z');
  const lapsed = await service(u, 'lapsed', TOWN_STAR_QUARTERLY, '2026-03-01T00:00:00Z', 'suspended');
  expect(await next(u)).toEqual([{ service_id: lapsed, service_name: 'lapsed', renews_at: '2026-03-01T00:00:00+00:00', amount: 30, suspended: true }]);
});

it('leaves out a service whose owner turned renewal off: it has no next payment (issue 36)', async () => {
  const u = await createTestUser(s, { credits: 100 });
  const first = await service(u, 'ends-first', TOWN_STAR, '2027-01-10T00:00:00Z');
  const later = await service(u, 'renews-later', TOWN_STAR_QUARTERLY, '2027-02-01T00:00:00Z');
  expect(await next(u)).toEqual([expect.objectContaining({ service_id: first, amount: 10 })]);
  expect((await u.client.rpc('set_service_auto_renew', { p_service_id: first, p_auto_renew: false })).error).toBeNull();
  expect(await next(u)).toEqual([{ service_id: later, service_name: 'renews-later', renews_at: '2027-02-01T00:00:00+00:00', amount: 30, suspended: false }]);
  expect((await u.client.rpc('set_service_auto_renew', { p_service_id: later, p_auto_renew: false })).error).toBeNull();
  expect(await next(u)).toEqual([]);
  // Turned on again before its end: it is the next payment again.
  expect((await u.client.rpc('set_service_auto_renew', { p_service_id: first, p_auto_renew: true })).error).toBeNull();
  expect(await next(u)).toEqual([expect.objectContaining({ service_id: first, amount: 10 })]);
});
