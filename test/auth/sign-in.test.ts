import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/server/auth/users';
import { startTestServer, type TestServer } from '../helpers/server';
import { authFetch, claimsOf } from './helpers';

describe('password sign-in', () => {
  let t: TestServer;
  let userId: string;
  beforeAll(async () => {
    t = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
    userId = (await createUser(t.deps.db, { email: 'ada@example.com', password: 'quiet-secret-pass', fullName: 'Ada' })).id;
  });
  afterAll(() => t.stop());

  it('signs in through supabase-js with GoTrue claims backed by a session row', async () => {
    const sb = t.client();
    const { data, error } = await sb.auth.signInWithPassword({ email: 'ADA@example.com', password: 'quiet-secret-pass' });
    expect(error).toBeNull();
    const s = data.session!;
    expect(s.token_type).toBe('bearer');
    expect(s.expires_in).toBe(3600);
    expect(s.refresh_token.length).toBeGreaterThanOrEqual(12);
    expect(data.user!.id).toBe(userId);
    expect(data.user!.user_metadata).toEqual({ full_name: 'Ada', email_verified: true });
    expect(data.user!.last_sign_in_at).toBeTruthy();
    const c = claimsOf(s.access_token);
    expect(c).toMatchObject({
      iss: `${t.deps.config.publicUrl}/auth/v1`,
      sub: userId,
      aud: 'authenticated',
      role: 'authenticated',
      email: 'ada@example.com',
      phone: '',
      aal: 'aal1',
      is_anonymous: false,
      app_metadata: { provider: 'email', providers: ['email'] },
      user_metadata: { full_name: 'Ada', email_verified: true },
    });
    expect(c.exp! as number).toBe((c.iat as number) + 3600);
    expect(s.expires_at).toBe(c.exp);
    expect(c.amr).toEqual([{ method: 'password', timestamp: expect.any(Number) }]);
    const { rows } = await t.deps.db.query(`select user_id from auth.sessions where id = $1`, [c.session_id]);
    expect(rows).toEqual([{ user_id: userId }]);
  });

  it('answers the password grant with weak_password null, and refuses bad credentials alike', async () => {
    const ok = await authFetch(t, '/token?grant_type=password', {
      body: { email: 'ada@example.com', password: 'quiet-secret-pass', gotrue_meta_security: {} },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toHaveProperty('weak_password', null);
    for (const body of [
      { email: 'ada@example.com', password: 'wrong-pass' },
      { email: 'nobody@example.com', password: 'quiet-secret-pass' },
      { email: 'ada@example.com' },
    ]) {
      const r = await authFetch(t, '/token?grant_type=password', { body });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({
        code: 'invalid_credentials',
        message: 'Invalid login credentials',
        error_code: 'invalid_credentials',
        msg: 'Invalid login credentials',
      });
      expect(r.headers.get('x-sb-error-code')).toBe('invalid_credentials');
      expect(r.headers.get('x-supabase-api-version')).toBe('2024-01-01');
    }
    const sb = t.client();
    const { error } = await sb.auth.signInWithPassword({ email: 'ada@example.com', password: 'wrong-pass' });
    expect(error).toMatchObject({ status: 400, code: 'invalid_credentials', message: 'Invalid login credentials' });
  });

  it('warns about a password that no longer meets the policy, and refuses an unconfirmed address', async () => {
    const bcrypt = (await import('bcryptjs')).default;
    const legacy = await createUser(t.deps.db, { email: 'legacy@example.com', password: 'long-enough-phrase' });
    // A five-character password, as a project with a laxer policy could have stored it.
    await t.deps.db.query(`update auth.users set encrypted_password = $2 where id = $1`, [legacy.id, bcrypt.hashSync('12345', 4)]);
    const { data, error } = await t.client().auth.signInWithPassword({ email: 'legacy@example.com', password: '12345' });
    expect(error).toBeNull();
    expect(data.weakPassword).toEqual({
      message: 'Password should be at least 8 characters. Password is known to be weak and easy to guess, please choose a different one.',
      reasons: ['length', 'pwned'],
    });
    await createUser(t.deps.db, { email: 'later@example.com', password: 'quiet-secret-pass', confirmed: false });
    const r = await authFetch(t, '/token?grant_type=password', { body: { email: 'later@example.com', password: 'quiet-secret-pass' } });
    expect([r.status, r.body?.code, r.body?.message]).toEqual([400, 'email_not_confirmed', 'Email not confirmed']);
    const wrong = await authFetch(t, '/token?grant_type=password', { body: { email: 'later@example.com', password: 'not-it' } });
    expect(wrong.body?.code).toBe('invalid_credentials');
  });

  it('answers GoTrue validation errors, legacy shape without the version header, and OAuth shape', async () => {
    const missing = await authFetch(t, '/token?grant_type=password', { body: { password: 'x' } });
    expect([missing.status, missing.body?.code, missing.body?.message]).toEqual([400, 'validation_failed', 'missing email or phone']);
    const legacy = await authFetch(t, '/token?grant_type=password', { body: { password: 'x' }, apiVersion: false });
    expect(legacy.body).toEqual({ code: 400, error_code: 'validation_failed', msg: 'missing email or phone' });
    expect(legacy.headers.get('x-supabase-api-version')).toBeNull();
    const grant = await authFetch(t, '/token?grant_type=magic', { body: {} });
    expect([grant.status, grant.body?.code, grant.body?.message]).toEqual([400, 'invalid_credentials', 'unsupported_grant_type']);
    const noToken = await authFetch(t, '/token?grant_type=refresh_token', { body: { refresh_token: '' } });
    expect(noToken).toMatchObject({ status: 400, body: { error: 'invalid_request', error_description: 'refresh_token required' } });
    for (const body of ['{not json', '[1,2]', '', JSON.stringify({ email: 5, password: 'x' })]) {
      const bad = await authFetch(t, '/token?grant_type=password', { body });
      expect([bad.status, bad.body?.code]).toEqual([400, 'bad_json']);
    }
    const noKey = await fetch(`${t.url}/auth/v1/token?grant_type=password`, { method: 'POST', body: '{}' });
    expect(noKey.status).toBe(401);
    expect(await noKey.json()).toMatchObject({ message: 'No API key found in request' });
    const unknown = await authFetch(t, '/nothing-here');
    expect([unknown.status, unknown.body?.code]).toEqual([404, 'not_found']);
  });

  it('verifies bcrypt hashes made elsewhere ($2a$ cost 4, $2b$ cost 8)', async () => {
    const bcrypt = (await import('bcryptjs')).default;
    const u = await createUser(t.deps.db, { email: 'imported@example.com', password: 'placeholder-phrase' });
    for (const hash of [bcrypt.hashSync('exported-1', 4).replace(/^\$2b\$/, '$2a$'), bcrypt.hashSync('exported-1', 8)]) {
      await t.deps.db.query(`update auth.users set encrypted_password = $2 where id = $1`, [u.id, hash]);
      const { data, error } = await t.client().auth.signInWithPassword({ email: 'imported@example.com', password: 'exported-1' });
      expect(error).toBeNull();
      expect(data.user?.id).toBe(u.id);
    }
  });

  it('serves settings and health', async () => {
    const s = await authFetch(t, '/settings');
    expect(s.body).toMatchObject({ disable_signup: true, external: { email: true } });
    expect((await authFetch(t, '/health')).status).toBe(200);
  });
});
