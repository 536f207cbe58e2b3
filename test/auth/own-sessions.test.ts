import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/server/auth/users';
import { startTestServer, type TestServer } from '../helpers/server';
import { authFetch } from './helpers';

const PASSWORD = 'quiet-secret-pass';
const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';
const SAFARI = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

type OwnSession = { id: string; created_at: string; last_active_at: string; ip: string; user_agent: string | null; aal: string; is_current: boolean };

describe('a user lists and ends their own sessions (list_own_sessions, end_own_session)', () => {
  let t: TestServer;
  let n = 0;
  beforeAll(async () => {
    t = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
  });
  afterAll(() => t.stop());

  /** A browser: a supabase-js client that sends its own user agent. */
  function browser(userAgent: string): SupabaseClient {
    return createClient(t.url, t.anonKey, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      global: { headers: { 'user-agent': userAgent } },
    });
  }

  async function newUser() {
    const email = `devices${++n}@example.com`;
    await createUser(t.deps.db, { email, password: PASSWORD });
    return email;
  }

  async function signIn(email: string, userAgent = FIREFOX) {
    const sb = browser(userAgent);
    const { data, error } = await sb.auth.signInWithPassword({ email, password: PASSWORD });
    expect(error).toBeNull();
    return { sb, session: data.session! };
  }

  async function list(sb: SupabaseClient): Promise<OwnSession[]> {
    const { data, error } = await sb.rpc('list_own_sessions');
    expect(error).toBeNull();
    return data as OwnSession[];
  }

  it('lists each signed-in device with its browser, address and last activity, this one first, and nothing secret', async () => {
    const email = await newUser();
    const laptop = await signIn(email, FIREFOX);
    const phone = await signIn(email, SAFARI);
    const other = await signIn(await newUser());
    const rows = await list(laptop.sb);
    expect(rows.map((r) => r.is_current)).toEqual([true, false]);
    expect(rows[0]).toMatchObject({ user_agent: FIREFOX, ip: '127.0.0.1', aal: 'aal1' });
    expect(rows[1]).toMatchObject({ user_agent: SAFARI, ip: '127.0.0.1' });
    expect(new Date(rows[0]!.last_active_at).getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(Object.keys(rows[0]!).sort()).toEqual(['aal', 'created_at', 'id', 'ip', 'is_current', 'last_active_at', 'user_agent']);
    const ids = new Set(rows.map((r) => r.id));
    expect(ids.has(other.session.user.id)).toBe(false);
    expect((await list(other.sb)).map((r) => r.is_current)).toEqual([true]);
    expect((await list(phone.sb))[0]!.user_agent).toBe(SAFARI);
  });

  it('moves last activity, address and browser forward on refresh', async () => {
    const email = await newUser();
    const { sb, session } = await signIn(email, FIREFOX);
    const before = (await list(sb))[0]!;
    await t.deps.db.query(`update auth.sessions set updated_at = now() - interval '1 hour', refreshed_at = now() - interval '1 hour' where id = $1`, [
      before.id,
    ]);
    const r = await authFetch(t, '/token?grant_type=refresh_token', { body: { refresh_token: session.refresh_token }, headers: { 'user-agent': SAFARI } });
    expect(r.status).toBe(200);
    const after = (await list(sb))[0]!;
    expect(after.id).toBe(before.id);
    expect(after.user_agent).toBe(SAFARI);
    expect(new Date(after.last_active_at).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it('ends another device: its refresh token and access token stop working, this one goes on', async () => {
    const email = await newUser();
    const laptop = await signIn(email);
    const phone = await signIn(email, SAFARI);
    const phoneRow = (await list(laptop.sb)).find((r) => !r.is_current)!;
    const { error } = await laptop.sb.rpc('end_own_session', { p_session_id: phoneRow.id });
    expect(error).toBeNull();
    expect((await list(laptop.sb)).map((r) => r.id)).not.toContain(phoneRow.id);
    const refreshed = await authFetch(t, '/token?grant_type=refresh_token', { body: { refresh_token: phone.session.refresh_token } });
    expect(refreshed.status).toBe(400);
    expect(refreshed.body).toMatchObject({ code: 'refresh_token_not_found' });
    expect((await authFetch(t, '/user', { bearer: phone.session.access_token })).status).toBe(403);
    expect((await authFetch(t, '/user', { bearer: laptop.session.access_token })).status).toBe(200);
  });

  it("refuses to list or end another user's sessions, and ending one of theirs changes nothing", async () => {
    const victim = await signIn(await newUser());
    const attacker = await signIn(await newUser());
    const victimId = (await list(victim.sb))[0]!.id;
    expect((await list(attacker.sb)).map((r) => r.id)).not.toContain(victimId);
    const { error } = await attacker.sb.rpc('end_own_session', { p_session_id: victimId });
    expect(error).toMatchObject({ code: 'P0002', message: 'This session has already ended' });
    expect((await list(victim.sb)).map((r) => r.id)).toEqual([victimId]);
    const refreshed = await authFetch(t, '/token?grant_type=refresh_token', { body: { refresh_token: victim.session.refresh_token } });
    expect(refreshed.status).toBe(200);
  });

  it('refuses anonymous callers, and reads no session table through the API', async () => {
    const anon = browser(FIREFOX);
    expect((await anon.rpc('list_own_sessions')).error).not.toBeNull();
    expect((await anon.rpc('end_own_session', { p_session_id: '00000000-0000-0000-0000-000000000000' })).error).not.toBeNull();
    const { sb } = await signIn(await newUser());
    expect(
      (
        await sb
          .schema('auth' as 'public')
          .from('sessions')
          .select('*')
      ).data ?? [],
    ).toEqual([]);
  });

  it('asks a user with a second factor for an aal2 session first', async () => {
    const email = await newUser();
    const { sb } = await signIn(email);
    const { data: factor } = await sb.auth.mfa.enroll({ factorType: 'totp' });
    const code = new TOTP({ secret: Secret.fromBase32(factor!.totp.secret) }).generate();
    expect((await sb.auth.mfa.challengeAndVerify({ factorId: factor!.id, code })).error).toBeNull();
    const { sb: passwordOnly } = await signIn(email, SAFARI);
    const listed = await passwordOnly.rpc('list_own_sessions');
    expect(listed.error).toMatchObject({ code: '42501', message: 'Two-factor sign-in required' });
    const aal2Id = (await list(sb))[0]!.id;
    const ended = await passwordOnly.rpc('end_own_session', { p_session_id: aal2Id });
    expect(ended.error).toMatchObject({ code: '42501' });
    expect((await list(sb)).map((r) => r.id)).toContain(aal2Id);
  });
});
