import type { SupabaseClient } from '@supabase/supabase-js';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_LIMITS } from '../../src/server/auth/rate-limits';
import { createUser } from '../../src/server/auth/users';
import { startTestServer, type TestServer } from '../helpers/server';
import { authFetch, claimsOf } from './helpers';

const PASSWORD = 'quiet-secret-pass';

describe('recovery codes for two-factor sign-in', () => {
  let t: TestServer;
  let n = 0;
  beforeAll(async () => {
    t = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
  });
  afterAll(() => t.stop());

  async function signIn(email: string) {
    const sb = t.client();
    const { error } = await sb.auth.signInWithPassword({ email, password: PASSWORD });
    expect(error).toBeNull();
    return sb;
  }

  const tokenOf = async (sb: SupabaseClient) => (await sb.auth.getSession()).data.session!;

  /** A user with a verified TOTP factor, signed in at aal2 on `sb`. */
  async function withFactor() {
    const email = `codes${++n}@example.com`;
    const user = await createUser(t.deps.db, { email, password: PASSWORD });
    const sb = await signIn(email);
    const { data: factor } = await sb.auth.mfa.enroll({ factorType: 'totp' });
    const code = new TOTP({ secret: Secret.fromBase32(factor!.totp.secret) }).generate();
    expect((await sb.auth.mfa.challengeAndVerify({ factorId: factor!.id, code })).error).toBeNull();
    return { email, user, sb, factorId: factor!.id };
  }

  async function regenerate(sb: SupabaseClient) {
    return authFetch(t, '/factors/recovery-codes', { method: 'POST', body: {}, bearer: (await tokenOf(sb)).access_token });
  }

  async function codesOf(sb: SupabaseClient): Promise<string[]> {
    const r = await regenerate(sb);
    expect(r.status).toBe(200);
    return r.body!.codes as string[];
  }

  const redeem = (bearer: string, code: unknown) => authFetch(t, '/factors/recovery', { body: { code }, bearer });
  const remaining = async (bearer: string) => (await authFetch(t, '/factors/recovery-codes', { bearer })).body!.remaining;

  it('makes ten distinct codes, shown once, kept only as hashes, never to be cached', async () => {
    const { sb, user } = await withFactor();
    const r = await regenerate(sb);
    expect(r.headers.get('cache-control')).toBe('no-store');
    const codes = r.body!.codes as string[];
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) expect(c).toMatch(/^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/);
    const { rows } = await t.deps.db.query<Record<string, unknown>>(`select * from auth.mfa_recovery_codes where user_id = $1`, [user.id]);
    expect(rows).toHaveLength(10);
    const stored = JSON.stringify(rows);
    for (const c of codes) {
      expect(stored).not.toContain(c);
      expect(stored).not.toContain(c.replaceAll('-', ''));
    }
    expect(await remaining((await tokenOf(sb)).access_token)).toBe(10);
  });

  it('signs in with a code instead of the app: aal2 with the recovery method, one code fewer, other aal1 sessions ended', async () => {
    const { sb, email } = await withFactor();
    const codes = await codesOf(sb);
    const stale = await tokenOf(await signIn(email));
    const fresh = await signIn(email);
    const aal1 = await tokenOf(fresh);
    expect(claimsOf(aal1.access_token).aal).toBe('aal1');
    // Typed as a person might: upper case, spaces instead of dashes.
    const r = await redeem(aal1.access_token, ` ${codes[3]!.toUpperCase().replaceAll('-', ' ')} `);
    expect(r.status).toBe(200);
    const claims = claimsOf(r.body!.access_token as string);
    expect(claims.aal).toBe('aal2');
    expect((claims.amr as { method: string }[]).map((a) => a.method)).toEqual(['recovery', 'password']);
    expect(claims.session_id).toBe(claimsOf(aal1.access_token).session_id);
    // The web client adopts the answer with setSession, then acts at aal2.
    expect((await fresh.auth.setSession({ access_token: r.body!.access_token as string, refresh_token: r.body!.refresh_token as string })).error).toBeNull();
    expect((await fresh.auth.mfa.getAuthenticatorAssuranceLevel()).data?.currentLevel).toBe('aal2');
    expect(await remaining(r.body!.access_token as string)).toBe(9);
    // As a TOTP verify, the raise rotates the refresh token and ends the user's other aal1 sessions.
    expect((await authFetch(t, '/token?grant_type=refresh_token', { body: { refresh_token: stale.refresh_token } })).status).toBe(400);
  });

  it('refuses a used code the second time', async () => {
    const { sb, email } = await withFactor();
    const [code] = await codesOf(sb);
    expect((await redeem((await tokenOf(await signIn(email))).access_token, code)).status).toBe(200);
    const again = await redeem((await tokenOf(await signIn(email))).access_token, code);
    expect(again.status).toBe(422);
    expect(again.body).toMatchObject({ code: 'mfa_verification_failed', message: 'Invalid recovery code entered' });
  });

  it("refuses another user's code, and spends nothing of theirs", async () => {
    const victim = await withFactor();
    const victimCodes = await codesOf(victim.sb);
    const attacker = await withFactor();
    await codesOf(attacker.sb);
    const attackerAal1 = await tokenOf(await signIn(attacker.email));
    const r = await redeem(attackerAal1.access_token, victimCodes[0]);
    expect(r.status).toBe(422);
    expect(claimsOf((await tokenOf(await signIn(attacker.email))).access_token).aal).toBe('aal1');
    expect(await remaining((await tokenOf(victim.sb)).access_token)).toBe(10);
    expect(await remaining((await tokenOf(attacker.sb)).access_token)).toBe(10);
  });

  it('refuses wrong, empty and malformed codes with a clear error, changing nothing', async () => {
    const { sb, email } = await withFactor();
    await codesOf(sb);
    const aal1 = (await tokenOf(await signIn(email))).access_token;
    expect((await redeem(aal1, 'aaaa-bbbb-cccc-dddd')).status).toBe(422);
    expect((await redeem(aal1, '')).body).toMatchObject({ code: 'validation_failed' });
    expect((await redeem(aal1, 42)).status).toBe(400);
    expect((await redeem(aal1, 'x'.repeat(10_000))).status).toBe(422);
    expect(await remaining((await tokenOf(sb)).access_token)).toBe(10);
  });

  it('lets only an aal2 session make codes; regenerating replaces every old code', async () => {
    const { sb, email } = await withFactor();
    const old = await codesOf(sb);
    const aal1 = (await tokenOf(await signIn(email))).access_token;
    const refused = await authFetch(t, '/factors/recovery-codes', { method: 'POST', body: {}, bearer: aal1 });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'insufficient_aal' });
    expect(await remaining((await tokenOf(sb)).access_token)).toBe(10);
    const fresh = await codesOf(sb);
    expect(fresh.some((c) => old.includes(c))).toBe(false);
    expect((await redeem(aal1, old[0])).status).toBe(422);
    expect((await redeem(aal1, fresh[0])).status).toBe(200);
  });

  it('makes no codes without a verified factor, and drops them with the last factor', async () => {
    const email = `nofactor${++n}@example.com`;
    await createUser(t.deps.db, { email, password: PASSWORD });
    const plain = await signIn(email);
    expect((await regenerate(plain)).status).toBe(422);
    const { sb, user, factorId } = await withFactor();
    await codesOf(sb);
    expect((await sb.auth.mfa.unenroll({ factorId })).error).toBeNull();
    const { rowCount } = await t.deps.db.query(`select 1 from auth.mfa_recovery_codes where user_id = $1`, [user.id]);
    expect(rowCount).toBe(0);
  });
});

describe('recovery code attempts are throttled like TOTP verification', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ RATE_LIMITS_ENABLED: 'true' });
  });
  afterAll(() => t.stop());

  it('per session: after the limit even a right code waits, and the owner’s own session is unaffected', async () => {
    const email = 'throttle@example.com';
    await createUser(t.deps.db, { email, password: PASSWORD });
    const sb = t.client();
    await sb.auth.signInWithPassword({ email, password: PASSWORD });
    const { data: factor } = await sb.auth.mfa.enroll({ factorType: 'totp' });
    const code = new TOTP({ secret: Secret.fromBase32(factor!.totp.secret) }).generate();
    expect((await sb.auth.mfa.challengeAndVerify({ factorId: factor!.id, code })).error).toBeNull();
    const bearer = (await sb.auth.getSession()).data.session!.access_token;
    const codes = (await authFetch(t, '/factors/recovery-codes', { method: 'POST', body: {}, bearer })).body!.codes as string[];

    const attacker = t.client();
    await attacker.auth.signInWithPassword({ email, password: PASSWORD });
    const attackerToken = (await attacker.auth.getSession()).data.session!.access_token;
    for (let i = 0; i < AUTH_LIMITS.recoveryCodePerSession.max; i++) {
      expect((await authFetch(t, '/factors/recovery', { body: { code: 'aaaa-aaaa-aaaa-aaaa' }, bearer: attackerToken })).status).toBe(422);
    }
    const blocked = await authFetch(t, '/factors/recovery', { body: { code: codes[0] }, bearer: attackerToken });
    expect(blocked.status).toBe(429);
    expect(blocked.body).toMatchObject({ code: 'over_request_rate_limit' });
    // A right code from another session of the owner still works (the addresses are the same
    // here, and stay under their own, higher limit).
    const owner = t.client();
    await owner.auth.signInWithPassword({ email, password: PASSWORD });
    const ownerToken = (await owner.auth.getSession()).data.session!.access_token;
    expect((await authFetch(t, '/factors/recovery', { body: { code: codes[1] }, bearer: ownerToken })).status).toBe(200);
  });
});
