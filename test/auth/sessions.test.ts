import { AuthSessionMissingError, AuthWeakPasswordError } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signJwt } from '../../src/server/auth/tokens';
import { createUser } from '../../src/server/auth/users';
import { startTestServer, type TestServer } from '../helpers/server';
import { authFetch, claimsOf } from './helpers';

describe('sessions, user and logout', () => {
  let t: TestServer;
  let n = 0;
  beforeAll(async () => {
    t = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
  });
  afterAll(() => t.stop());

  /** A fresh user and a client signed in as them. */
  async function signedIn(password = 'quiet-secret-pass') {
    const email = `user${++n}@example.com`;
    const user = await createUser(t.deps.db, { email, password, fullName: `User ${n}` });
    const sb = t.client();
    const { data, error } = await sb.auth.signInWithPassword({ email, password });
    expect(error).toBeNull();
    return { sb, email, user, session: data.session! };
  }

  async function secondClient(email: string, password = 'quiet-secret-pass') {
    const sb = t.client();
    const { data, error } = await sb.auth.signInWithPassword({ email, password });
    expect(error).toBeNull();
    return { sb, session: data.session! };
  }

  it('returns the bare user as GoTrue does', async () => {
    const { sb, session, user } = await signedIn();
    const r = await authFetch(t, '/user', { bearer: session.access_token });
    expect(r.status).toBe(200);
    const body = r.body!;
    expect(body).toMatchObject({
      id: user.id,
      aud: 'authenticated',
      role: 'authenticated',
      email: user.email,
      phone: '',
      app_metadata: { provider: 'email', providers: ['email'] },
      user_metadata: { full_name: user.raw_user_meta_data.full_name, email_verified: true },
      is_anonymous: false,
    });
    expect(body.identities).toEqual([
      expect.objectContaining({ identity_id: expect.any(String), id: user.id, user_id: user.id, provider: 'email', email: user.email }),
    ]);
    for (const k of ['email_confirmed_at', 'confirmed_at', 'last_sign_in_at', 'created_at', 'updated_at']) {
      expect(Date.parse(body[k] as string)).not.toBeNaN();
    }
    // Null timestamps are left out, as Go's omitempty does.
    for (const k of ['recovery_sent_at', 'banned_until', 'deleted_at', 'invited_at', 'phone_confirmed_at']) expect(body).not.toHaveProperty(k);
    const { data } = await sb.auth.getUser();
    expect(data.user?.id).toBe(user.id);
  });

  it('rotates the refresh token, keeping the session', async () => {
    const { sb, session } = await signedIn();
    const { data, error } = await sb.auth.refreshSession();
    expect(error).toBeNull();
    const next = data.session!;
    expect(next.refresh_token).not.toBe(session.refresh_token);
    expect(claimsOf(next.access_token).session_id).toBe(claimsOf(session.access_token).session_id);
    expect(claimsOf(next.access_token).amr).toEqual(claimsOf(session.access_token).amr);
    expect((await sb.auth.getSession()).data.session?.refresh_token).toBe(next.refresh_token);
    const raw = await authFetch(t, '/token?grant_type=refresh_token', { body: { refresh_token: next.refresh_token } });
    expect(raw.status).toBe(200);
    expect(raw.body).not.toHaveProperty('weak_password');
    const unknown = await authFetch(t, '/token?grant_type=refresh_token', { body: { refresh_token: 'not-a-token-of-ours' } });
    expect([unknown.status, unknown.body?.code, unknown.body?.message]).toEqual([
      400,
      'refresh_token_not_found',
      'Invalid Refresh Token: Refresh Token Not Found',
    ]);
  });

  it('lets a just-rotated token be used again within the reuse interval, for the same session', async () => {
    const { session } = await signedIn();
    const first = await authFetch(t, '/token?grant_type=refresh_token', { body: { refresh_token: session.refresh_token } });
    const again = await authFetch(t, '/token?grant_type=refresh_token', { body: { refresh_token: session.refresh_token } });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(claimsOf(again.body!.access_token as string).session_id).toBe(claimsOf(session.access_token).session_id);
  });

  it('revokes the whole family when a rotated token is reused after the interval', async () => {
    const { session } = await signedIn();
    const sid = claimsOf(session.access_token).session_id as string;
    const second = await authFetch(t, '/token?grant_type=refresh_token', { body: { refresh_token: session.refresh_token } });
    const third = await authFetch(t, '/token?grant_type=refresh_token', { body: { refresh_token: second.body!.refresh_token } });
    const newest = third.body!.refresh_token as string;
    // Move the rotations into the past, beyond the 10 s interval.
    await t.deps.db.query(`update auth.refresh_tokens set updated_at = updated_at - interval '1 minute' where session_id = $1`, [sid]);
    const reuse = await authFetch(t, '/token?grant_type=refresh_token', { body: { refresh_token: session.refresh_token } });
    expect([reuse.status, reuse.body?.code, reuse.body?.message]).toEqual([400, 'refresh_token_already_used', 'Invalid Refresh Token: Already Used']);
    const afterwards = await authFetch(t, '/token?grant_type=refresh_token', { body: { refresh_token: newest } });
    expect(afterwards.status).toBe(400);
    expect(afterwards.body?.code).toBe('refresh_token_not_found');
    const { rowCount } = await t.deps.db.query(`select 1 from auth.refresh_tokens where session_id = $1`, [sid]);
    expect(rowCount).toBe(0);
    const user = await authFetch(t, '/user', { bearer: third.body!.access_token as string });
    expect([user.status, user.body?.code]).toEqual([403, 'session_not_found']);
  });

  it('refuses missing, tampered, expired, wrong-secret and subject-less tokens on GET /user', async () => {
    const { session, user } = await signedIn();
    const none = await authFetch(t, '/user');
    expect([none.status, none.body?.code]).toEqual([401, 'no_authorization']);
    const [h, p, s] = session.access_token.split('.');
    const payload = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...payload, role: 'service_role' })).toString('base64url')}.${s}`;
    const now = Math.floor(Date.now() / 1000);
    const expired = await signJwt(t.deps.keys, { ...payload, iat: now - 7200, exp: now - 3600 });
    const wrongSecret = await signJwt({ jwtSecret: new TextEncoder().encode('another-secret-that-is-long-enough-0123456789') }, payload);
    for (const [token, why] of [
      [tampered, 'signature is invalid'],
      [expired, 'token is expired'],
      [wrongSecret, 'signature is invalid'],
      ['not.a.jwt', 'malformed'],
      ['garbage', 'malformed'],
    ] as const) {
      const r = await authFetch(t, '/user', { bearer: token });
      expect(r.status).toBe(403);
      expect(r.body?.code).toBe('bad_jwt');
      expect(r.body?.message).toContain(why);
    }
    const anon = await authFetch(t, '/user', { bearer: t.anonKey });
    expect([anon.status, anon.body?.code, anon.body?.message]).toEqual([403, 'bad_jwt', 'invalid claim: missing sub claim']);
    const { exp: _exp, ...forever } = payload as { exp: number };
    const noExpiry = await authFetch(t, '/user', { bearer: await signJwt(t.deps.keys, forever) });
    expect([noExpiry.status, noExpiry.body?.code, noExpiry.body?.message]).toEqual([
      403,
      'bad_jwt',
      'invalid JWT: unable to parse or verify signature, token has invalid claims',
    ]);
    const valid = await signJwt(t.deps.keys, { ...payload, iat: now, exp: now + 600 });
    expect((await authFetch(t, '/user', { bearer: valid })).body?.id).toBe(user.id);
  });

  it('updates user_metadata: data merges, null removes a key', async () => {
    const { sb } = await signedIn();
    const { data, error } = await sb.auth.updateUser({ data: { company: 'Acme', theme: 'dark' } });
    expect(error).toBeNull();
    expect(data.user?.user_metadata).toMatchObject({ full_name: expect.any(String), company: 'Acme', theme: 'dark' });
    const second = await sb.auth.updateUser({ data: { theme: null } });
    expect(second.data.user?.user_metadata).not.toHaveProperty('theme');
    expect(second.data.user?.user_metadata.company).toBe('Acme');
  });

  /** The security mails in the outbox for this address, by subject. */
  async function mailsTo(email: string): Promise<string[]> {
    const { rows } = await t.deps.db.query<{ subject: string }>(`select subject from nodeharbor.outbox where to_address = $1 order by id`, [email]);
    return rows.map((r) => r.subject);
  }

  it('refuses a password change from an access token alone: the current password is required', async () => {
    const { sb, email, session } = await signedIn();
    // A stolen access token, without the password: missing or wrong current password is refused.
    const missing = await authFetch(t, '/user', { method: 'PUT', bearer: session.access_token, body: { password: 'taken-over-pass' } });
    expect([missing.status, missing.body?.code, missing.body?.message]).toEqual([
      400,
      'current_password_required',
      'Current password required when setting new password.',
    ]);
    const wrong = await sb.auth.updateUser({ password: 'taken-over-pass', current_password: 'a-guess-at-it' });
    expect([wrong.error?.status, wrong.error?.code, wrong.error?.message]).toEqual([400, 'current_password_invalid', 'Current password is incorrect.']);
    // Nothing changed, and nobody was told of a change that did not happen.
    expect((await t.client().auth.signInWithPassword({ email, password: 'quiet-secret-pass' })).error).toBeNull();
    expect((await t.client().auth.signInWithPassword({ email, password: 'taken-over-pass' })).error?.code).toBe('invalid_credentials');
    expect(await mailsTo(email)).toEqual([]);
  });

  it('changes the password, ending every other session but this one, and tells the owner', async () => {
    const { sb, email } = await signedIn();
    const other = await secondClient(email);
    const { error } = await sb.auth.updateUser({ password: 'brand-new-pass', current_password: 'quiet-secret-pass' });
    expect(error).toBeNull();
    expect(await mailsTo(email)).toEqual(['Your NodeHarbor password was changed']);
    expect((await sb.auth.getUser()).error).toBeNull();
    const gone = await other.sb.auth.getUser();
    expect(gone.error).toBeInstanceOf(AuthSessionMissingError);
    const old = await t.client().auth.signInWithPassword({ email, password: 'quiet-secret-pass' });
    expect(old.error?.code).toBe('invalid_credentials');
    const fresh = await t.client().auth.signInWithPassword({ email, password: 'brand-new-pass' });
    expect(fresh.error).toBeNull();
  });

  it('refuses the same, a weak or an over-long password, an e-mail change and app_metadata, changing nothing', async () => {
    const { sb, email, session } = await signedIn();
    const same = await sb.auth.updateUser({ password: 'quiet-secret-pass', current_password: 'quiet-secret-pass' });
    expect([same.error?.status, same.error?.code, same.error?.message]).toEqual([
      422,
      'same_password',
      'New password should be different from the old password.',
    ]);
    const weak = await sb.auth.updateUser({ password: '123456', current_password: 'quiet-secret-pass', data: { company: 'Nope' } });
    expect(weak.error).toBeInstanceOf(AuthWeakPasswordError);
    expect((weak.error as AuthWeakPasswordError).reasons).toEqual(['length', 'pwned']);
    expect(weak.error?.message).toBe(
      'Password should be at least 8 characters. Password is known to be weak and easy to guess, please choose a different one.',
    );
    const seven = await sb.auth.updateUser({ password: 'Xq7#vR2', current_password: 'quiet-secret-pass' });
    // Seven characters are too few to be hard to guess however random (zxcvbn: about 10^7 tries).
    expect((seven.error as AuthWeakPasswordError).reasons).toEqual(['length', 'pwned']);
    const common = await sb.auth.updateUser({ password: 'qwertyuiop', current_password: 'quiet-secret-pass' });
    expect([common.error?.status, common.error?.code, (common.error as AuthWeakPasswordError).reasons]).toEqual([422, 'weak_password', ['pwned']]);
    const long = await sb.auth.updateUser({ password: 'x'.repeat(73), current_password: 'quiet-secret-pass' });
    expect([long.error?.status, long.error?.code]).toEqual([400, 'validation_failed']);
    const mail = await sb.auth.updateUser({ email: 'elsewhere@example.com' });
    expect([mail.error?.status, mail.error?.code]).toEqual([422, 'email_change_not_supported']);
    const admin = await authFetch(t, '/user', { method: 'PUT', bearer: session.access_token, body: { app_metadata: { role: 'admin' } } });
    expect([admin.status, admin.body?.code]).toEqual([403, 'not_admin']);
    const { data } = await sb.auth.getUser();
    expect(data.user?.user_metadata).not.toHaveProperty('company');
    expect(data.user?.app_metadata).toEqual({ provider: 'email', providers: ['email'] });
    expect((await t.client().auth.signInWithPassword({ email, password: 'quiet-secret-pass' })).error).toBeNull();
  });

  it('signs out locally: this session ends, the others stay', async () => {
    const { sb, email, session } = await signedIn();
    const other = await secondClient(email);
    expect((await sb.auth.signOut({ scope: 'local' })).error).toBeNull();
    expect((await sb.auth.getSession()).data.session).toBeNull();
    const after = await authFetch(t, '/user', { bearer: session.access_token });
    expect([after.status, after.body?.code, after.body?.message]).toEqual([403, 'session_not_found', 'Session from session_id claim in JWT does not exist']);
    const refresh = await authFetch(t, '/token?grant_type=refresh_token', { body: { refresh_token: session.refresh_token } });
    expect(refresh.status).toBe(400);
    expect((await other.sb.auth.getUser()).error).toBeNull();
  });

  it('signs out the others: this session stays', async () => {
    const { sb, email } = await signedIn();
    const other = await secondClient(email);
    expect((await sb.auth.signOut({ scope: 'others' })).error).toBeNull();
    expect((await sb.auth.getUser()).error).toBeNull();
    expect((await other.sb.auth.getUser()).error).toBeInstanceOf(AuthSessionMissingError);
  });

  it('signs out globally: every session ends', async () => {
    const { sb, email, session } = await signedIn();
    const other = await secondClient(email);
    expect((await sb.auth.signOut()).error).toBeNull();
    expect((await other.sb.auth.getUser()).error).toBeInstanceOf(AuthSessionMissingError);
    expect((await authFetch(t, '/user', { bearer: session.access_token })).body?.code).toBe('session_not_found');
    const raw = await authFetch(t, '/logout?scope=global', { method: 'POST', bearer: other.session.access_token });
    expect(raw.status).toBe(403);
  });

  it('answers 204 to logout and 400 to an unknown scope', async () => {
    const { session } = await signedIn();
    const bad = await authFetch(t, '/logout?scope=everything', { method: 'POST', bearer: session.access_token });
    expect([bad.status, bad.body?.code, bad.body?.message]).toEqual([400, 'validation_failed', 'Unsupported logout scope "everything"']);
    const ok = await authFetch(t, '/logout', { method: 'POST', bearer: session.access_token });
    expect([ok.status, ok.body]).toEqual([204, null]);
  });
});
