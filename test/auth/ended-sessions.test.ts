import { createClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invokeFunction } from '../helpers/functions';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, type TestUser } from '../helpers/users';
import { claimsOf } from './helpers';

/**
 * The attack: keep using an access token after its session has ended. Until its expiry it used
 * to read and write through /rest/v1 and /functions/v1; now each request checks the session.
 */
describe('access tokens of ended sessions', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
  });
  afterAll(() => t.stop());

  /** A client that sends this access token as a stolen copy would, with no session of its own. */
  const withToken = (token: string) =>
    createClient(t.url, t.anonKey, {
      auth: { persistSession: false, autoRefreshToken: false },
      global: { headers: { Authorization: `Bearer ${token}` } },
    });

  /** Every way in for a token: a table read, a table write, an RPC, and a function. */
  async function usesOf(user: TestUser) {
    const sb = withToken(user.token);
    const read = await sb.from('profiles').select('id').eq('id', user.id);
    const write = await sb.from('profiles').update({ full_name: 'Mallory' }).eq('id', user.id).select('id');
    const rpc = await sb.rpc('is_user_admin', { user_uuid: user.id });
    const fn = await invokeFunction(sb, 'contact-settings', {});
    return { read, write, rpc, fn };
  }

  async function expectRefused(user: TestUser) {
    const { read, write, rpc, fn } = await usesOf(user);
    for (const r of [read, write, rpc]) {
      expect(r.status).toBe(401);
      expect(r.error).toMatchObject({ code: 'PGRST301', message: 'Session from session_id claim in JWT does not exist' });
    }
    expect(fn.status).toBe(401);
    const { rows } = await t.deps.db.query<{ full_name: string | null }>(`select full_name from public.profiles where id = $1`, [user.id]);
    expect(rows[0]?.full_name ?? null).not.toBe('Mallory');
  }

  it('works while the session lives', async () => {
    const user = await createTestUser(t);
    const { read, write, rpc, fn } = await usesOf(user);
    expect([read.status, write.status, rpc.status]).toEqual([200, 200, 200]);
    expect(fn.status).not.toBe(401);
  });

  it('is refused at once after sign-out', async () => {
    const user = await createTestUser(t);
    expect((await user.client.auth.signOut({ scope: 'local' })).error).toBeNull();
    await expectRefused(user);
    const raw = await fetch(`${t.url}/rest/v1/profiles?select=id`, { headers: { apikey: t.anonKey, authorization: `Bearer ${user.token}` } });
    expect(raw.headers.get('www-authenticate')).toBe('Bearer error="invalid_token", error_description="Session from session_id claim in JWT does not exist"');
  });

  it('is refused at once when the session row is deleted in SQL (sign out a device)', async () => {
    const user = await createTestUser(t);
    await t.deps.db.query(`delete from auth.sessions where id = $1`, [claimsOf(user.token).session_id]);
    await expectRefused(user);
  });

  it('is refused on other devices after a password change', async () => {
    const user = await createTestUser(t);
    const other = t.client();
    expect((await other.auth.signInWithPassword({ email: user.email, password: user.password })).error).toBeNull();
    expect((await other.auth.updateUser({ password: 'another-long-passphrase-42', current_password: user.password })).error).toBeNull();
    await expectRefused(user);
  });

  it('is refused after the account is deleted, and writes no ledger row', async () => {
    const user = await createTestUser(t, { credits: 5 });
    const other = t.client();
    expect((await other.auth.signInWithPassword({ email: user.email, password: user.password })).error).toBeNull();
    expect((await other.rpc('delete_own_account', { p_email: user.email })).error).toBeNull();
    await expectRefused(user);
    const stolen = withToken(user.token);
    const buy = await stolen.rpc('update_user_credits', { p_user_id: user.id, p_amount: 100, p_transaction_type: 'purchase', p_description: 'free money' });
    expect(buy.status).toBe(401);
  });

  it('still lets the anon key and the service role in (they carry no session)', async () => {
    expect((await t.client().from('products').select('id').limit(1)).status).toBe(200);
    expect((await t.serviceClient().from('profiles').select('id').limit(1)).status).toBe(200);
  });
});
