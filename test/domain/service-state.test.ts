import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, GALA_KEY, TOWN_STAR, type TestUser } from '../helpers/users';
import { expectLedgerBalanced } from '../helpers/ledger';

// One state per service (issue 14): its transitions, a failed installation and its retry, and the
// paid period that starts when the node first runs. What a failure gives back and what a retry
// charges (issue 36, item 5) are failed-install-refund.test.ts's.

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
});
// Money moves here: every balance stays its ledger's sum.
afterEach(() => expectLedgerBalanced(s.deps.db));
afterAll(() => s.stop());

type Row = {
  state: string;
  is_installed: boolean;
  is_deleting: boolean;
  is_deleted: boolean;
  expired: boolean;
  failure_cause: string | null;
  renews_at: string;
};
const DAY = 86400_000;

async function create(u: TestUser, name: string): Promise<string> {
  const { data, error } = await u.client.rpc('create_service_securely', { p_name: name, p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR });
  if (error) throw error;
  return (data as { id: string }).id;
}
async function row(u: TestUser, id: string): Promise<Row> {
  const { data, error } = await u.client
    .from('services')
    .select('state, is_installed, is_deleting, is_deleted, expired, failure_cause, renews_at')
    .eq('id', id)
    .single();
  if (error) throw error;
  return data as Row;
}
const sql = <T>(text: string, params: unknown[] = []) => s.deps.db.query<T>(text, params).then((r) => r.rows);
const fail = (id: string, reason: string) => sql<{ changed: boolean | null }>('select private.fail_service_installation($1, $2) as changed', [id, reason]);
const events = async (id: string) =>
  (await sql<{ event: string }>('select event from public.service_events where service_id = $1 order by id', [id])).map((e) => e.event);
/**
 * A purchased service reused (deleted, then taken again by a new order: nothing charged) whose
 * installation failed: it keeps the period bought the first time.
 */
async function reusedAndFailed(u: TestUser, name: string): Promise<string> {
  const first = await create(u, `${name}-0`);
  await sql('select private.complete_service_installation($1)', [first]);
  await u.client.rpc('manage_service_operation', { p_service_id: first, p_operation: 'delete' });
  await sql('select private.complete_service_deletion($1)', [first]);
  const id = await create(u, name);
  expect(id).toBe(first);
  expect(await fail(id, 'No such image: x')).toEqual([{ changed: true }]);
  return id;
}
const installJobs = async (id: string) =>
  (await sql<{ n: number }>(`select count(*)::int as n from nodeharbor.jobs where task = 'install-service' and payload ->> 'serviceId' = $1`, [id]))[0]!.n;

describe('the state and its transitions', () => {
  it("derives the spec booleans from the state, in the view and in the functions' answers", async () => {
    const u = await createTestUser(s, { credits: 10 });
    const id = await create(u, 'derived');
    expect(await row(u, id)).toMatchObject({ state: 'installing', is_installed: false, is_deleting: false, is_deleted: false, expired: false });
    await sql('select private.complete_service_installation($1)', [id]);
    expect(await row(u, id)).toMatchObject({ state: 'active', is_installed: true, expired: false });
    const del = await u.client.rpc('manage_service_operation', { p_service_id: id, p_operation: 'delete' });
    expect(del.data).toMatchObject({ state: 'deleting', is_deleting: true, is_deleted: false, is_installed: true });
  });

  it('refuses a move that is not in the table of transitions, whoever writes it', async () => {
    const u = await createTestUser(s, { credits: 10 });
    const id = await create(u, 'no-jump');
    await expect(sql(`update private.services set state = 'deleted' where id = $1`, [id])).rejects.toThrow('A service cannot go from installing to deleted');
    await expect(sql(`update private.services set state = 'expired' where id = $1`, [id])).rejects.toThrow('A service cannot go from installing to expired');
    expect((await row(u, id)).state).toBe('installing');
    // The API roles cannot write the state at all.
    const forged = await u.client.from('services').update({ state: 'active' }).eq('id', id).select();
    expect(forged.error).not.toBeNull();
  });
});

describe('a failed installation', () => {
  it("keeps the engine's reason for the admins and tells its owner the cause, records it once, and leaves the booleans as installing", async () => {
    const u = await createTestUser(s, { credits: 10 });
    const stranger = await createTestUser(s);
    const id = await create(u, 'fails');
    expect(await fail(id, 'No such image: nodeharbor/townstar-node:1')).toEqual([{ changed: true }]);
    expect(await fail(id, 'again')).toEqual([{ changed: null }]);
    expect(await row(u, id)).toMatchObject({
      state: 'failed',
      failure_cause: 'not_started',
      is_installed: false,
      is_deleting: false,
      expired: false,
    });
    expect(await sql('select provisioning_error from private.services where id = $1', [id])).toEqual([
      { provisioning_error: 'No such image: nodeharbor/townstar-node:1' },
    ]);
    expect(await events(id)).toEqual(['install_requested', 'install_failed']);
    const { data } = await stranger.client.from('services').select('failure_cause').eq('id', id);
    expect(data).toEqual([]);
    // The API roles cannot fail a service.
    expect((await u.client.rpc('fail_service_installation', { p_service_id: id, p_reason: 'x' })).status).toBe(404);
  });

  it('can be retried by its owner: installing again, the reason cleared, a new install job', async () => {
    const u = await createTestUser(s, { credits: 10 });
    const id = await create(u, 'retry-me');
    const early = await u.client.rpc('retry_service_installation', { p_service_id: id, p_charge: 10 });
    expect(early.error?.message).toBe('Only a service whose installation failed can be retried');
    await fail(id, 'No such image: x');
    // Its $10 came back when it failed: the retry buys the period again, at the price confirmed.
    const { data, error } = await u.client.rpc('retry_service_installation', { p_service_id: id, p_charge: 10 });
    expect(error).toBeNull();
    expect(data).toMatchObject({ id, state: 'installing', failure_cause: null, is_installed: false, api_key: GALA_KEY, charged: 10 });
    expect(await events(id)).toEqual(['install_requested', 'install_failed', 'retry_requested']);
    expect(await installJobs(id)).toBe(2);
    const twice = await u.client.rpc('retry_service_installation', { p_service_id: id, p_charge: 10 });
    expect(twice).toMatchObject({ status: 409, error: { message: 'Only a service whose installation failed can be retried' } });
    expect(await installJobs(id)).toBe(2);
  });

  it('can be retried by an admin, and by nobody else, when it was not charged (a reused purchased service)', async () => {
    const u = await createTestUser(s, { credits: 10 });
    const admin = await createTestUser(s, { admin: true });
    const stranger = await createTestUser(s);
    const id = await reusedAndFailed(u, 'admin-retry');
    const foreign = await stranger.client.rpc('retry_service_installation', { p_service_id: id });
    expect(foreign).toMatchObject({ status: 404, error: { message: 'Service not found' } });
    const anonymous = await s.client().rpc('retry_service_installation', { p_service_id: id });
    expect(anonymous.status).toBe(401);
    expect((await row(u, id)).state).toBe('failed');
    const { data, error } = await admin.client.rpc('retry_service_installation', { p_service_id: id });
    expect(error).toBeNull();
    // The service as it is now, without its owner's key.
    expect(data).toMatchObject({ id, state: 'installing' });
    expect(data).not.toHaveProperty('api_key');
    expect((await row(u, id)).state).toBe('installing');
    const detail = await sql<{ detail: { by: string } }>(`select detail from public.service_events where service_id = $1 and event = 'retry_requested'`, [id]);
    expect(detail).toEqual([{ detail: { by: 'admin' } }]);
  });

  it('cannot be extended, and a charged one deleted leaves no slot to reuse: its price came back instead', async () => {
    const u = await createTestUser(s, { credits: 20 });
    const id = await create(u, 'del-failed');
    // Ten days stuck installing and failed: none of them is sold, and the whole price comes back.
    await sql(`update private.services set unbilled_since = now() - interval '10 days' where id = $1`, [id]);
    await fail(id, 'No such image: x');
    const ext = await u.client.rpc('extend_service_expiration', { p_service_id: id, p_product_id: TOWN_STAR, p_months: 1 });
    expect(ext.error?.message).toBe('Cannot extend, installation failed');
    const del = await u.client.rpc('manage_service_operation', { p_service_id: id, p_operation: 'delete' });
    expect(del.error).toBeNull();
    await sql('select private.complete_service_deletion($1)', [id]);
    const after = await row(u, id);
    expect(after).toMatchObject({ state: 'deleted', is_deleted: true });
    expect(new Date(after.renews_at).getTime()).toBeLessThanOrEqual(Date.now());
    const { data: unused } = await u.client.rpc('get_unused_purchased_services', { p_user_id: u.id });
    expect(unused).toEqual([]);
    const balance = await u.client.from('user_credits').select('balance').single();
    expect(Number((balance.data as { balance: number }).balance)).toBe(20);
  });

  it('that was not charged (a reused purchased service) keeps its period, and deleted goes back to the reusable slot', async () => {
    const u = await createTestUser(s, { credits: 10 });
    const id = await reusedAndFailed(u, 'del-reused');
    const before = new Date((await row(u, id)).renews_at).getTime();
    expect(before).toBeGreaterThan(Date.now() + 25 * DAY);
    await u.client.rpc('manage_service_operation', { p_service_id: id, p_operation: 'delete' });
    await sql('select private.complete_service_deletion($1)', [id]);
    const { data: unused } = await u.client.rpc('get_unused_purchased_services', { p_user_id: u.id });
    expect((unused as { id: string }[]).map((x) => x.id)).toEqual([id]);
    const balance = await u.client.from('user_credits').select('balance').single();
    expect(Number((balance.data as { balance: number }).balance)).toBe(0);
  });
});

describe('the paid period', () => {
  it('starts when the node first runs: the time spent installing is added to the renewal date', async () => {
    const u = await createTestUser(s, { credits: 10 });
    const id = await create(u, 'late-start');
    const ordered = new Date((await row(u, id)).renews_at).getTime();
    await sql(`update private.services set unbilled_since = now() - interval '3 days' where id = $1`, [id]);
    await sql('select private.complete_service_installation($1)', [id]);
    const renews = new Date((await row(u, id)).renews_at).getTime();
    expect(renews - ordered).toBeGreaterThan(3 * DAY - 60_000);
    expect(renews - ordered).toBeLessThan(3 * DAY + 60_000);
    const unbilled = await sql<{ unbilled_since: Date | null }>('select unbilled_since from private.services where id = $1', [id]);
    expect(unbilled).toEqual([{ unbilled_since: null }]);
  });

  it('of a failure retried is a new one, bought by the retry, and it too starts when the node first runs', async () => {
    const u = await createTestUser(s, { credits: 10 });
    const id = await create(u, 'retry-start');
    await sql(`update private.services set unbilled_since = now() - interval '3 days' where id = $1`, [id]);
    await fail(id, 'no suitable node');
    const { data: retried, error } = await u.client.rpc('retry_service_installation', { p_service_id: id, p_charge: 10 });
    expect(error).toBeNull();
    // A month from the retry, none of the three days before it...
    const bought = new Date((retried as { renews_at: string }).renews_at).getTime();
    const month = (await sql<{ at: Date }>(`select now() + interval '1 month' as at`))[0]!.at.getTime();
    expect(Math.abs(bought - month)).toBeLessThan(60_000);
    // ...and the two days it then took to install.
    await sql(`update private.services set unbilled_since = now() - interval '2 days' where id = $1`, [id]);
    await sql('select private.complete_service_installation($1)', [id]);
    const renews = new Date((await row(u, id)).renews_at).getTime();
    expect(renews - bought).toBeGreaterThan(2 * DAY - 60_000);
    expect(renews - bought).toBeLessThan(2 * DAY + 60_000);
  });
});
