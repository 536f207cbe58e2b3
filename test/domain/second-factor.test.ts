import type { SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/shared/validation';
import { invokeFunction } from '../helpers/functions';
import { signInAal1, verifyNewFactor } from '../helpers/mfa';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, GALA_KEY, TOWN_STAR, type TestUser } from '../helpers/users';

/**
 * Issue 15: a user with a verified factor whose session has only passed the password (aal1) may
 * step up, sign out and read their factors, and nothing else. Each attack runs at aal1 (refused,
 * nothing changes) and then at aal2 (allowed), with the same user and row.
 */
let s: TestServer;
let user: TestUser;
let aal1: SupabaseClient;
let aal2: SupabaseClient;
let serviceId: string;

beforeAll(async () => {
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
  user = await createTestUser(s, { credits: 20, fullName: 'Ada Lovelace' });
  const created = await user.client.rpc('create_service_securely', { p_name: 'guarded', p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR });
  if (created.error) throw created.error;
  serviceId = (created.data as { id: string }).id;
  await verifyNewFactor(user);
  aal2 = user.client;
  aal1 = await signInAal1(s, user);
});
afterAll(() => s.stop());

const refused = { code: '42501', message: messages.secondFactorRequired };
const row = async (sql: string) => (await s.deps.db.query(sql, [user.id])).rows[0];

describe('a verified factor guards everything past the password', () => {
  it('the decrypted API key: not readable at aal1, readable at aal2', async () => {
    const at1 = await aal1.from('services').select('id, api_key');
    expect(at1.error).toBeNull();
    expect(at1.data).toEqual([]);
    const at2 = await aal2.from('services').select('id, api_key');
    expect(at2.data).toEqual([{ id: serviceId, api_key: GALA_KEY }]);
  });

  it('changing a service: refused at aal1 (nothing changes), allowed at aal2', async () => {
    const update = (c: SupabaseClient, name: string) =>
      c.rpc('manage_service_operation', { p_service_id: serviceId, p_operation: 'update', p_updates: { name } });
    const at1 = await update(aal1, 'hijacked');
    expect(at1.status).toBe(403);
    expect(at1.error).toMatchObject(refused);
    const created = await aal1.rpc('create_service_securely', { p_name: 'another', p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR });
    expect(created.error).toMatchObject(refused);
    expect(await row(`select string_agg(name, ',') as names from private.services where user_id = $1`)).toEqual({ names: 'guarded' });
    expect((await update(aal2, 'renamed')).error).toBeNull();
    expect(await row(`select string_agg(name, ',') as names from private.services where user_id = $1`)).toEqual({ names: 'renamed' });
  });

  it('buying credit: refused at aal1 (no purchase begins), allowed at aal2', async () => {
    const at1 = await invokeFunction(aal1, 'purchase-credits', { amount: 10, credits_amount: 10 });
    expect(at1).toEqual({ status: 403, body: { error: messages.secondFactorRequired } });
    expect(await row('select count(*)::int as n from public.credit_purchases where user_id = $1')).toEqual({ n: 0 });
    const at2 = await invokeFunction(aal2, 'purchase-credits', { amount: 10, credits_amount: 10 });
    expect(at2.status).toBe(200);
    expect(await row('select count(*)::int as n from public.credit_purchases where user_id = $1')).toEqual({ n: 1 });
  });

  it('editing the profile: refused at aal1 (nothing changes), allowed at aal2', async () => {
    const at1 = await aal1.from('profiles').update({ full_name: 'Mallory' }).eq('id', user.id).select();
    expect(at1.data).toEqual([]);
    expect(await row('select full_name from public.profiles where id = $1')).toEqual({ full_name: 'Ada Lovelace' });
    const at2 = await aal2.from('profiles').update({ full_name: 'Ada King' }).eq('id', user.id).select('full_name');
    expect(at2.data).toEqual([{ full_name: 'Ada King' }]);
  });

  it('the other functions that act for the caller answer the same at aal1', async () => {
    const mail = await invokeFunction(aal1, 'send-sqs-message', { eventType: 'service_created', serviceData: { id: serviceId } });
    expect(mail).toEqual({ status: 403, body: { error: messages.secondFactorRequired } });
    const settings = await invokeFunction(aal1, 'contact-settings', {});
    expect(settings).toEqual({ status: 403, body: { error: messages.secondFactorRequired } });
    for (const [fn, args] of [
      ['is_user_admin', { user_uuid: user.id }],
      ['has_dev_access', { user_uuid: user.id }],
      ['get_unused_purchased_services', { p_user_id: user.id }],
      ['get_next_payment', {}],
      ['extend_service_expiration', { p_service_id: serviceId, p_product_id: TOWN_STAR, p_months: 1 }],
      ['retry_service_installation', { p_service_id: serviceId, p_charge: 10 }],
      ['get_negative_balance', {}],
      ['update_user_credits', { p_user_id: user.id, p_amount: -1, p_transaction_type: 'service_charge', p_description: 'x', p_service_id: serviceId }],
    ] as const) {
      expect((await aal1.rpc(fn, args)).error, fn).toMatchObject(refused);
    }
    expect((await aal2.rpc('is_user_admin', { user_uuid: user.id })).data).toBe(false);
  });

  it('what GoTrue allows at aal1 still works: the user, the factors, a challenge', async () => {
    expect((await aal1.auth.getUser()).data.user?.id).toBe(user.id);
    const factors = await aal1.auth.mfa.listFactors();
    expect(factors.data?.totp).toHaveLength(1);
    expect((await aal1.auth.mfa.challenge({ factorId: factors.data!.totp[0]!.id })).error).toBeNull();
  });

  it('deleting the account: refused at aal1 (the account stays), allowed at aal2', async () => {
    const at1 = await aal1.rpc('delete_own_account', { p_email: user.email });
    expect(at1.error).toMatchObject(refused);
    expect(await row('select deleted_at is null as live from auth.users where id = $1')).toEqual({ live: true });
    // The installation must end first; the simulated one needs no Docker.
    await s.deps.db.query(`update private.services set state = 'active' where user_id = $1`, [user.id]);
    expect((await aal2.rpc('delete_own_account', { p_email: user.email })).error).toBeNull();
    expect(await row('select deleted_at is null as live from auth.users where id = $1')).toEqual({ live: false });
  });

  it('signing out works at aal1', async () => {
    const fresh = await createTestUser(s);
    await verifyNewFactor(fresh);
    const c = await signInAal1(s, fresh);
    expect((await c.auth.signOut()).error).toBeNull();
  });
});
