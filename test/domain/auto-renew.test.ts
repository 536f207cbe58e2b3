import type { SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { autoRenewMessages } from '../../src/shared/auto-renew';
import { messages } from '../../src/shared/validation';
import { signInAal1, verifyNewFactor } from '../helpers/mfa';
import { userClient } from '../rest/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';
import { forceServiceState } from '../helpers/service-state';
import { createService, createTestUser, GALA_KEY, TOWN_STAR, type TestUser } from '../helpers/users';

// The owner's "Renew automatically" switch (issue 36, item 4; migration 0046): who may turn it,
// when, and what a change records. What the renewal then does is test/lifecycle/renew-or-not.test.ts.

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
});
afterAll(() => s.stop());

const sql = <T>(text: string, params: unknown[] = []) => s.deps.db.query<T>(text, params).then((r) => r.rows);
/** What a refusal must leave as it was: the switch, the state, the period and the events. */
const snapshot = async (id: string) =>
  (
    await sql<{ auto_renew: boolean; state: string; renews_at: Date; events: string[] | null }>(
      `select s.auto_renew, s.state::text as state, s.renews_at,
              (select array_agg(e.event order by e.id) from public.service_events e where e.service_id = s.id) as events
         from private.services s where s.id = $1`,
      [id],
    )
  )[0]!;
const setAutoRenew = (c: SupabaseClient, id: string, on: unknown) => c.rpc('set_service_auto_renew', { p_service_id: id, p_auto_renew: on });

/** A service of `u`'s whose node runs (installed through the function the worker calls). */
async function activeService(u: TestUser, name: string): Promise<string> {
  const id = await createService(u, name);
  await sql('select private.complete_service_installation($1)', [id]);
  return id;
}

describe('set_service_auto_renew', () => {
  it('is on by default; its owner turns it off and on again: the answer, the view, and one event per change', async () => {
    const u = await createTestUser(s, { credits: 10 });
    const id = await activeService(u, 'switched');
    const read = async () => (await u.client.from('services').select('auto_renew').eq('id', id).single()).data;
    expect(await read()).toEqual({ auto_renew: true });

    const off = await setAutoRenew(u.client, id, false);
    expect(off.error).toBeNull();
    expect(off.data).toMatchObject({ id, auto_renew: false, state: 'active' });
    expect(await read()).toEqual({ auto_renew: false });
    // The same word again changes nothing and records nothing.
    expect((await setAutoRenew(u.client, id, false)).error).toBeNull();
    expect((await snapshot(id)).events).toEqual(['install_requested', 'installed', 'auto_renew_off']);

    const on = await setAutoRenew(u.client, id, true);
    expect(on.data).toMatchObject({ id, auto_renew: true });
    expect(await read()).toEqual({ auto_renew: true });
    expect((await snapshot(id)).events).toEqual(['install_requested', 'installed', 'auto_renew_off', 'auto_renew_on']);
    // The owner reads the events too: the service page tells them.
    const { data } = await u.client.from('service_events').select('event, detail').eq('service_id', id).order('id');
    expect((data as unknown[]).slice(-2)).toEqual([
      { event: 'auto_renew_off', detail: null },
      { event: 'auto_renew_on', detail: null },
    ]);
  });

  it("answers another user's service as it answers a missing or a deleted one, and changes nothing", async () => {
    const owner = await createTestUser(s, { credits: 20 });
    const stranger = await createTestUser(s);
    const id = await activeService(owner, 'not-yours');
    const before = await snapshot(id);
    const foreign = await setAutoRenew(stranger.client, id, false);
    const missing = await setAutoRenew(stranger.client, '00000000-0000-4000-8000-0000000000ff', false);
    expect(foreign).toMatchObject({ status: 404, data: null, error: { code: 'PT404', message: 'Service not found' } });
    expect({ status: foreign.status, error: foreign.error }).toEqual({ status: missing.status, error: missing.error });
    expect(await snapshot(id)).toEqual(before);

    // Deleted by its owner (the node gone): no longer theirs to switch either.
    const gone = await activeService(owner, 'deleted-one');
    expect((await owner.client.rpc('manage_service_operation', { p_service_id: gone, p_operation: 'delete' })).error).toBeNull();
    const deleting = await setAutoRenew(owner.client, gone, false);
    expect(deleting).toMatchObject({ status: 400, error: { message: 'Service is currently being deleted...' } });
    await sql(`update private.services set state = 'deleted' where id = $1`, [gone]);
    const goneBefore = await snapshot(gone);
    const deleted = await setAutoRenew(owner.client, gone, false);
    expect({ status: deleted.status, error: deleted.error }).toEqual({ status: missing.status, error: missing.error });
    expect(await snapshot(gone)).toEqual(goneBefore);

    const anonymous = await setAutoRenew(s.client(), id, false);
    expect(anonymous.status).toBe(401);
    expect(await snapshot(id)).toEqual(before);
  });

  it('refuses an aal1 session of a user with a verified second factor (nothing changes), and allows the aal2 one', async () => {
    const u = await createTestUser(s, { credits: 10 });
    const id = await activeService(u, 'guarded-ar');
    await verifyNewFactor(u);
    const aal1 = await signInAal1(s, u);
    const before = await snapshot(id);
    const refused = await setAutoRenew(aal1, id, false);
    expect(refused).toMatchObject({ status: 403, data: null, error: { code: '42501', message: messages.secondFactorRequired } });
    expect(await snapshot(id)).toEqual(before);
    // The view does not show the service at aal1 either.
    expect((await aal1.from('services').select('id, auto_renew')).data).toEqual([]);
    expect((await setAutoRenew(u.client, id, false)).error).toBeNull();
    expect((await snapshot(id)).auto_renew).toBe(false);
  });

  it('refuses a closed account, even with a token the server signed for it', async () => {
    const u = await createTestUser(s, { credits: 10 });
    const id = await activeService(u, 'ar-closed');
    expect((await u.client.rpc('delete_own_account', { p_email: u.email })).error).toBeNull();
    const before = await snapshot(id);
    const sessionless = await userClient(s, u.id);
    expect((await setAutoRenew(sessionless, id, false)).error).toMatchObject({ code: '42501', message: 'You must be logged in' });
    expect(await snapshot(id)).toEqual(before);
  });

  it('can be changed while a period lies ahead (installing, failed, active), and says why not otherwise', async () => {
    const u = await createTestUser(s, { credits: 100 });
    const installing = await createService(u, 'ar-installing');
    expect((await setAutoRenew(u.client, installing, false)).data).toMatchObject({ state: 'installing', auto_renew: false });
    const failed = await createService(u, 'ar-failed');
    await sql('select private.fail_service_installation($1, $2)', [failed, 'No such image: x']);
    expect((await setAutoRenew(u.client, failed, false)).data).toMatchObject({ state: 'failed', auto_renew: false });

    const expired = await activeService(u, 'ar-expired');
    await forceServiceState(s.deps.db, 'expired', 'id = $1', expired);
    const suspended = await activeService(u, 'ar-suspended');
    await forceServiceState(s.deps.db, 'suspended', 'id = $1', suspended, `terminates_at = now() + interval '14 days'`);
    const oneTime = await activeService(u, 'ar-one-time');
    await sql('update private.services set renews_at = null where id = $1', [oneTime]);
    const fixed = await activeService(u, 'ar-fixed-plan');
    const plan = await sql<{ id: string }>(
      `insert into public.products (name, price, renew_interval, base_product_code) values ('Fixed term', 10, null, 'TOWNSTAR') returning id`,
    );
    await sql('update private.services set product_id = $2 where id = $1', [fixed, plan[0]!.id]);

    for (const [id, message] of [
      [expired, autoRenewMessages.expired],
      [suspended, autoRenewMessages.suspended],
      [oneTime, autoRenewMessages.oneTime],
      [fixed, autoRenewMessages.planDoesNotRenew],
    ] as const) {
      const before = await snapshot(id);
      // Neither way: an expired service is turned on through Extend, not here.
      for (const on of [false, true]) {
        expect(await setAutoRenew(u.client, id, on), `${message} ${on}`).toMatchObject({ status: 400, data: null, error: { message } });
      }
      expect(await snapshot(id)).toEqual(before);
    }
  });

  it('refuses what is not true or false, or no answer at all, and changes nothing', async () => {
    const u = await createTestUser(s, { credits: 10 });
    const id = await activeService(u, 'ar-hostile');
    const before = await snapshot(id);
    expect(await setAutoRenew(u.client, id, null)).toMatchObject({ status: 400, error: { message: autoRenewMessages.notBoolean } });
    for (const bad of ['maybe', 2, { on: true }, [true]]) {
      const answer = await setAutoRenew(u.client, id, bad);
      expect(answer.error, JSON.stringify(bad)).not.toBeNull();
      expect(answer.status, JSON.stringify(bad)).toBeGreaterThanOrEqual(400);
      expect(answer.status, JSON.stringify(bad)).toBeLessThan(500);
    }
    expect((await u.client.rpc('set_service_auto_renew', { p_service_id: id })).error).not.toBeNull();
    expect((await u.client.rpc('set_service_auto_renew', { p_service_id: 'not-a-uuid', p_auto_renew: false })).error).not.toBeNull();
    expect(await snapshot(id)).toEqual(before);
  });

  it('is not writable through the API any other way: not the view, not manage_service_operation', async () => {
    const u = await createTestUser(s, { credits: 10 });
    const id = await activeService(u, 'ar-direct');
    const before = await snapshot(id);
    const patched = await u.client.from('services').update({ auto_renew: false }).eq('id', id);
    expect(patched.error).not.toBeNull();
    const updated = await u.client.rpc('manage_service_operation', { p_service_id: id, p_operation: 'update', p_updates: { auto_renew: false } });
    expect(updated.error?.message).toBe('Only name, description and api_key can be updated');
    expect(await snapshot(id)).toEqual(before);
  });

  it('is on again for a purchased service reused by a new order: a new service renews', async () => {
    const u = await createTestUser(s, { credits: 10 });
    const id = await activeService(u, 'ar-reused');
    expect((await setAutoRenew(u.client, id, false)).error).toBeNull();
    expect((await u.client.rpc('manage_service_operation', { p_service_id: id, p_operation: 'delete' })).error).toBeNull();
    await sql(`update private.services set state = 'deleted' where id = $1`, [id]);
    // No credit left: the new order can only be the reused one.
    const { data, error } = await u.client.rpc('create_service_securely', {
      p_name: 'ar-again',
      p_description: null,
      p_api_key: GALA_KEY,
      p_product_id: TOWN_STAR,
    });
    expect(error).toBeNull();
    expect(data).toMatchObject({ id, reused: true, state: 'installing', auto_renew: true });
  });
});
