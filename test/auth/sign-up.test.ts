import { AuthWeakPasswordError } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';
import { findUserByEmail } from '../../src/server/auth/users';
import { authFetch, claimsOf } from './helpers';

describe('sign-up, disabled (the default)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
  });
  afterAll(() => t.stop());

  it('answers signup_disabled and creates nobody', async () => {
    const { data, error } = await t.client().auth.signUp({ email: 'new@example.com', password: 'quiet-secret-pass', options: { data: { full_name: 'New' } } });
    expect([error?.status, error?.code, error?.message]).toEqual([422, 'signup_disabled', 'Signups not allowed for this instance']);
    expect(data.session).toBeNull();
    const { rowCount } = await t.deps.db.query(`select 1 from auth.users`);
    expect(rowCount).toBe(0);
  });
});

describe('sign-up, enabled', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ REGISTRATION_ENABLED: 'true', RATE_LIMITS_ENABLED: 'false' });
  });
  afterAll(() => t.stop());

  it('creates a confirmed user with full_name and signs them in', async () => {
    const sb = t.client();
    const { data, error } = await sb.auth.signUp({ email: 'New@Example.com', password: 'quiet-secret-pass', options: { data: { full_name: 'New Person' } } });
    expect(error).toBeNull();
    expect(data.user?.email).toBe('new@example.com');
    expect(data.user?.user_metadata).toMatchObject({ full_name: 'New Person' });
    expect(data.user?.identities).toHaveLength(1);
    expect(claimsOf(data.session!.access_token).amr).toEqual([{ method: 'password', timestamp: expect.any(Number) }]);
    expect((await sb.auth.getUser()).data.user?.id).toBe(data.user?.id);
    expect((await t.client().auth.signInWithPassword({ email: 'new@example.com', password: 'quiet-secret-pass' })).error).toBeNull();
  });

  it('refuses an existing address, a weak password and a bad address', async () => {
    const dup = await t.client().auth.signUp({ email: 'new@example.com', password: 'other-quiet-pass' });
    expect([dup.error?.status, dup.error?.code, dup.error?.message]).toEqual([422, 'user_already_exists', 'User already registered']);
    const weak = await t.client().auth.signUp({ email: 'weak@example.com', password: '12345' });
    expect(weak.error).toBeInstanceOf(AuthWeakPasswordError);
    expect((weak.error as AuthWeakPasswordError).reasons).toEqual(['length', 'pwned']);
    // Long enough but on the list of the most used passwords: refused, and nobody is created.
    for (const common of ['12345678', 'password', 'Iloveyou1']) {
      const r = await t.client().auth.signUp({ email: 'common@example.com', password: common });
      expect(r.error).toBeInstanceOf(AuthWeakPasswordError);
      expect([r.error?.status, (r.error as AuthWeakPasswordError).reasons]).toEqual([422, ['pwned']]);
    }
    expect(await findUserByEmail(t.deps.db, 'common@example.com')).toBeNull();
    const bad = await authFetch(t, '/signup', { body: { email: 'nope', password: 'quiet-secret-pass' } });
    expect([bad.status, bad.body?.code]).toEqual([400, 'validation_failed']);
    const noPassword = await authFetch(t, '/signup', { body: { email: 'x@example.com' } });
    expect([noPassword.status, noPassword.body?.message]).toEqual([400, 'Signup requires a valid password']);
    const badData = await authFetch(t, '/signup', { body: { email: 'x@example.com', password: 'quiet-secret-pass', data: 'full_name' } });
    expect([badData.status, badData.body?.code]).toEqual([400, 'bad_json']);
    const { rows } = await t.deps.db.query<{ email: string }>(`select email from auth.users order by email`);
    expect(rows.map((r) => r.email)).toEqual(['new@example.com']);
  });
});
