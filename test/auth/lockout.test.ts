import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_LIMITS } from '../../src/server/auth/rate-limits';
import { createUser } from '../../src/server/auth/users';
import { startTestServer, type TestServer } from '../helpers/server';
import { authenticator } from '../helpers/mfa';
import { authFetch } from './helpers';

const PASSWORD = 'owners-own-passphrase';
const HOME = '198.51.100.1';
const ATTACKER = '203.0.113.9';

/**
 * The attack: fail on purpose for someone else's account so that its owner cannot sign in. The
 * server sits behind one trusted proxy, whose X-Forwarded-For tells each client's address.
 */
describe('locking someone else out', () => {
  let t: TestServer;
  let n = 0;
  beforeAll(async () => {
    t = await startTestServer({ RATE_LIMITS_ENABLED: 'true', TRUST_PROXY: 'true' });
  });
  afterAll(() => t.stop());

  const signIn = (email: string, password: string, ip: string) =>
    authFetch(t, '/token?grant_type=password', { body: { email, password }, headers: { 'x-forwarded-for': ip } });

  /** supabase-js as a browser at `ip` uses it. */
  const browserAt = (ip: string): SupabaseClient =>
    createClient(t.url, t.anonKey, { auth: { persistSession: false, autoRefreshToken: false }, global: { headers: { 'x-forwarded-for': ip } } });

  async function account() {
    const email = `owner${++n}@example.com`;
    await createUser(t.deps.db, { email, password: PASSWORD });
    return email;
  }

  it("a stranger's wrong passwords do not lock the owner out at an address the account knows", async () => {
    const email = await account();
    expect((await signIn(email, PASSWORD, HOME)).status).toBe(200);
    for (let i = 0; i < AUTH_LIMITS.passwordFailuresPerEmail.max; i++) {
      expect((await signIn(email, 'a-wrong-guess', ATTACKER)).status).toBe(400);
    }
    // The guesser is throttled, right password or not, and learns nothing more.
    const guesser = await signIn(email, PASSWORD, ATTACKER);
    expect([guesser.status, guesser.body?.code]).toEqual([429, 'over_request_rate_limit']);
    expect((await signIn(email, 'a-wrong-guess', '203.0.113.10')).status).toBe(429);
    // The owner at home still signs in.
    const { error } = await browserAt(HOME).auth.signInWithPassword({ email, password: PASSWORD });
    expect(error).toBeNull();
  });

  it("the owner's own mistypes at home are still limited", async () => {
    const email = await account();
    expect((await signIn(email, PASSWORD, HOME)).status).toBe(200);
    for (let i = 0; i < AUTH_LIMITS.passwordFailuresPerKnownAddress.max; i++) {
      expect((await signIn(email, 'mistyped', HOME)).status).toBe(400);
    }
    expect((await signIn(email, PASSWORD, HOME)).status).toBe(429);
  });

  it('counts failures only: signing in again and again is not throttled by the failure limits', async () => {
    const email = await account();
    for (let i = 0; i <= AUTH_LIMITS.passwordFailuresPerEmail.max + 1; i++) {
      expect((await signIn(email, PASSWORD, '192.0.2.50')).status).toBe(200);
    }
  });

  it("throttles a guesser's own address across many accounts", async () => {
    const sprayer = '192.0.2.77';
    for (let i = 0; i < AUTH_LIMITS.passwordFailuresPerIp.max; i++) {
      expect((await signIn(`sprayed${i}@example.com`, 'Summer2026!', sprayer)).status).toBe(400);
    }
    expect((await signIn('sprayed-last@example.com', 'Summer2026!', sprayer)).status).toBe(429);
    expect((await signIn('sprayed-last@example.com', 'Summer2026!', '192.0.2.78')).status).toBe(400);
  });

  it("someone holding the password cannot spend the owner's second-factor attempts", async () => {
    const email = await account();
    const owner = browserAt(HOME);
    expect((await owner.auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull();
    const { data: factor } = await owner.auth.mfa.enroll({ factorType: 'totp' });
    const codes = authenticator(factor!.totp.secret);
    expect((await owner.auth.mfa.challengeAndVerify({ factorId: factor!.id, code: codes.next() })).error).toBeNull();

    // The attacker has the password, so an aal1 session, and guesses codes until throttled.
    const attacker = browserAt(ATTACKER);
    expect((await attacker.auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull();
    const { data: challenge } = await attacker.auth.mfa.challenge({ factorId: factor!.id });
    const right = codes.next();
    const wrong = right === '000000' ? '000001' : '000000';
    for (let i = 0; i < AUTH_LIMITS.factorFailuresPerSession.max; i++) {
      const { error } = await attacker.auth.mfa.verify({ factorId: factor!.id, challengeId: challenge!.id, code: wrong });
      expect(error?.code).toBe('mfa_verification_failed');
    }
    const blocked = await attacker.auth.mfa.verify({ factorId: factor!.id, challengeId: challenge!.id, code: wrong });
    expect(blocked.error?.status).toBe(429);
    // A new session from another unknown address gets no fresh attempts on the factor.
    const elsewhere = browserAt('203.0.113.10');
    expect((await elsewhere.auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull();
    const { data: again } = await elsewhere.auth.mfa.challenge({ factorId: factor!.id });
    expect((await elsewhere.auth.mfa.verify({ factorId: factor!.id, challengeId: again!.id, code: wrong })).error?.status).toBe(429);

    // The owner, signing in at home, still passes the second factor.
    const home = browserAt(HOME);
    expect((await home.auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull();
    const { error } = await home.auth.mfa.challengeAndVerify({ factorId: factor!.id, code: right });
    expect(error).toBeNull();
    expect((await home.auth.mfa.getAuthenticatorAssuranceLevel()).data!.currentLevel).toBe('aal2');
  });

  it('a password alone does not make an address known to an account with a second factor', async () => {
    const email = await account();
    const owner = browserAt(HOME);
    expect((await owner.auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull();
    const { data: factor } = await owner.auth.mfa.enroll({ factorType: 'totp' });
    const codes = authenticator(factor!.totp.secret);
    expect((await owner.auth.mfa.challengeAndVerify({ factorId: factor!.id, code: codes.next() })).error).toBeNull();
    expect((await signIn(email, PASSWORD, ATTACKER)).status).toBe(200);
    const { rows } = await t.deps.db.query<{ ip: string }>(`select k.ip from auth.known_addresses k join auth.users u on u.id = k.user_id where u.email = $1`, [
      email,
    ]);
    expect(rows.map((r) => r.ip)).toEqual([HOME]);
  });
});
