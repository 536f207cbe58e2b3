import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/server/auth/users';
import { authenticator } from '../helpers/mfa';
import { startTestServer, type TestServer } from '../helpers/server';
import { authFetch } from './helpers';

const PASSWORD = 'quiet-secret-pass';
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';

/**
 * Each security e-mail is queued by the action it reports, and by nothing else. The server sits
 * behind one trusted proxy, so X-Forwarded-For tells each client's address.
 */
describe('security e-mails', () => {
  let t: TestServer;
  let n = 0;
  beforeAll(async () => {
    t = await startTestServer({ RATE_LIMITS_ENABLED: 'false', TRUST_PROXY: 'true' });
  });
  afterAll(() => t.stop());

  const clientFrom = (ip: string, ua = FIREFOX): SupabaseClient =>
    createClient(t.url, t.anonKey, {
      auth: { persistSession: false, autoRefreshToken: false },
      global: { headers: { 'x-forwarded-for': ip, 'user-agent': ua } },
    });

  async function mails(email: string): Promise<{ subject: string; text_body: string }[]> {
    const { rows } = await t.deps.db.query<{ subject: string; text_body: string }>(
      `select subject, text_body from nodeharbor.outbox where to_address = $1 order by id`,
      [email],
    );
    return rows;
  }
  const subjects = async (email: string) => (await mails(email)).map((m) => m.subject);

  async function newUser() {
    const email = `alert${++n}@example.com`;
    await createUser(t.deps.db, { email, password: PASSWORD });
    return email;
  }

  async function signIn(email: string, ip: string, password = PASSWORD) {
    const sb = clientFrom(ip);
    const r = await sb.auth.signInWithPassword({ email, password });
    return { sb, error: r.error };
  }

  async function withFactor(ip: string) {
    const email = await newUser();
    const { sb } = await signIn(email, ip);
    const { data, error } = await sb.auth.mfa.enroll({ factorType: 'totp' });
    expect(error).toBeNull();
    const codes = authenticator(data!.totp.secret);
    return { email, sb, factorId: data!.id, codes };
  }

  it('a sign-in from a new address mails the owner once; the same address again, a first sign-in and a failed one do not', async () => {
    const email = await newUser();
    expect((await signIn(email, '203.0.113.1')).error).toBeNull();
    expect((await signIn(email, '203.0.113.1')).error).toBeNull();
    expect((await signIn(email, '198.51.100.7', 'wrong-pass')).error?.code).toBe('invalid_credentials');
    expect(await subjects(email)).toEqual([]);
    expect((await signIn(email, '198.51.100.7')).error).toBeNull();
    expect((await signIn(email, '198.51.100.7')).error).toBeNull();
    const sent = await mails(email);
    expect(sent.map((m) => m.subject)).toEqual(['New sign-in to your NodeHarbor account']);
    expect(sent[0]!.text_body).toContain('address 198.51.100.7, Firefox 128 on Linux');
    expect(sent[0]!.text_body).toMatch(/When: \w+ \d+, \d{4} at \d+:\d\d [AP]M UTC\./);
    expect(sent[0]!.text_body).toContain(`reset your password now at ${t.deps.config.publicUrl}/reset-password`);
    expect(sent[0]!.text_body).toContain(`contact us at ${t.deps.config.publicUrl}/contact`);
  });

  it('a password alone, for an account with a factor, is not yet a sign-in: the mail waits for the second factor', async () => {
    const { email, sb, factorId, codes } = await withFactor('203.0.113.2');
    expect((await sb.auth.mfa.challengeAndVerify({ factorId, code: codes.next() })).error).toBeNull();
    const before = await subjects(email);
    const { sb: other } = await signIn(email, '198.51.100.8');
    expect(await subjects(email)).toEqual(before);
    expect((await other.auth.mfa.challengeAndVerify({ factorId, code: codes.next() })).error).toBeNull();
    expect((await subjects(email)).slice(before.length)).toEqual(['New sign-in to your NodeHarbor account']);
  });

  it('verifying a factor mails "added" once; a wrong code, a later verify and an unverified factor removed send nothing', async () => {
    const { email, sb, factorId, codes } = await withFactor('203.0.113.3');
    expect((await sb.auth.mfa.challengeAndVerify({ factorId, code: '000000' })).error?.code).toBe('mfa_verification_failed');
    expect(await subjects(email)).toEqual([]);
    expect((await sb.auth.mfa.challengeAndVerify({ factorId, code: codes.next() })).error).toBeNull();
    expect(await subjects(email)).toEqual(['A two-factor method was added to your NodeHarbor account']);
    const stray = await sb.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Never verified' });
    expect((await sb.auth.mfa.unenroll({ factorId: stray.data!.id })).error).toBeNull();
    expect(await subjects(email)).toHaveLength(1);
    // Removing the verified factor is news, and says so.
    expect((await sb.auth.mfa.unenroll({ factorId })).error).toBeNull();
    expect(await subjects(email)).toEqual([
      'A two-factor method was added to your NodeHarbor account',
      'A two-factor method was removed from your NodeHarbor account',
    ]);
  });

  it('a removal refused at aal1 sends nothing', async () => {
    const { email, sb, factorId, codes } = await withFactor('203.0.113.4');
    expect((await sb.auth.mfa.challengeAndVerify({ factorId, code: codes.next() })).error).toBeNull();
    const { sb: weak } = await signIn(email, '203.0.113.4');
    expect((await weak.auth.mfa.unenroll({ factorId })).error?.code).toBe('insufficient_aal');
    expect(await subjects(email)).toEqual(['A two-factor method was added to your NodeHarbor account']);
  });

  it('a recovery code used mails the owner; a wrong code does not', async () => {
    const { email, sb, factorId, codes } = await withFactor('203.0.113.5');
    expect((await sb.auth.mfa.challengeAndVerify({ factorId, code: codes.next() })).error).toBeNull();
    const bearer = (await sb.auth.getSession()).data.session!.access_token;
    const generated = await authFetch(t, '/factors/recovery-codes', { method: 'POST', body: {}, bearer, headers: { 'x-forwarded-for': '203.0.113.5' } });
    const recoveryCodes = generated.body!.codes as string[];
    const { sb: weak } = await signIn(email, '203.0.113.5');
    const weakBearer = (await weak.auth.getSession()).data.session!.access_token;
    const redeem = (code: string) => authFetch(t, '/factors/recovery', { body: { code }, bearer: weakBearer, headers: { 'x-forwarded-for': '203.0.113.5' } });
    expect((await redeem('aaaa-bbbb-cccc-dddd')).status).toBe(422);
    expect(await subjects(email)).toEqual(['A two-factor method was added to your NodeHarbor account']);
    expect((await redeem(recoveryCodes[0]!)).status).toBe(200);
    expect((await subjects(email)).slice(1)).toEqual(['A recovery code was used on your NodeHarbor account']);
  });

  it('a password change mails the owner; a refused one does not', async () => {
    const email = await newUser();
    const { sb } = await signIn(email, '203.0.113.6');
    expect((await sb.auth.updateUser({ password: 'brand-new-pass', current_password: 'not-it-at-all' })).error?.code).toBe('current_password_invalid');
    expect((await sb.auth.updateUser({ password: 'password', current_password: PASSWORD })).error?.code).toBe('weak_password');
    expect((await sb.auth.updateUser({ data: { theme: 'dark' } })).error).toBeNull();
    expect(await subjects(email)).toEqual([]);
    expect((await sb.auth.updateUser({ password: 'brand-new-pass', current_password: PASSWORD })).error).toBeNull();
    const sent = await mails(email);
    expect(sent.map((m) => m.subject)).toEqual(['Your NodeHarbor password was changed']);
    expect(sent[0]!.text_body).toContain('address 203.0.113.6');
  });
});
