import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/server/auth/users';
import { USER_METADATA_MAX_BYTES } from '../../src/server/auth/user-metadata';
import { JSON_TOO_DEEP } from '../../src/server/http/json-body';
import { PROFILE_FULL_NAME_MAX } from '../../src/shared/constants';
import { messages } from '../../src/shared/validation';
import { startTestServer, type TestServer } from '../helpers/server';
import { authFetch } from '../auth/helpers';

const deep = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

describe('bounded input to /auth/v1', () => {
  let t: TestServer;
  let token: string;
  let userId: string;
  const users = async () => (await t.deps.db.query<{ n: number }>('select count(*)::int as n from auth.users')).rows[0]!.n;
  const metadata = async () =>
    (await t.deps.db.query<{ m: Record<string, unknown> }>('select raw_user_meta_data as m from auth.users where id = $1', [userId])).rows[0]!.m;

  beforeAll(async () => {
    t = await startTestServer({ REGISTRATION_ENABLED: 'true', RATE_LIMITS_ENABLED: 'false' });
    userId = (await createUser(t.deps.db, { email: 'ada@example.com', password: 'quiet-secret-pass', fullName: 'Ada' })).id;
    const { data } = await t.client().auth.signInWithPassword({ email: 'ada@example.com', password: 'quiet-secret-pass' });
    token = data.session!.access_token;
  });
  afterAll(() => t.stop());

  it('refuses 10,000-deep JSON to sign-up and PUT /user with GoTrue’s 400 bad_json, and keeps answering', async () => {
    const before = await users();
    const signUp = await authFetch(t, '/signup', { body: `{"email":"deep@example.com","password":"secret-pass","data":${deep(10_000)}}` });
    expect(signUp.status).toBe(400);
    expect(signUp.body).toMatchObject({ code: 'bad_json', message: `Could not parse request body as JSON: ${JSON_TOO_DEEP}` });
    const put = await authFetch(t, '/user', { method: 'PUT', bearer: token, body: `{"data":{"x":${deep(10_000)}}}` });
    expect(put.status).toBe(400);
    expect(put.body).toMatchObject({ code: 'bad_json' });
    expect(await users()).toBe(before);
    expect(await metadata()).not.toHaveProperty('x');
    expect((await authFetch(t, '/user', { bearer: token })).status).toBe(200);
  });

  it('takes nested metadata within the limit', async () => {
    const put = await authFetch(t, '/user', { method: 'PUT', bearer: token, body: `{"data":{"prefs":${deep(20)}}}` });
    expect(put.status).toBe(200);
    expect(await metadata()).toHaveProperty('prefs');
    await authFetch(t, '/user', { method: 'PUT', bearer: token, body: { data: { prefs: null } } });
  });

  it('refuses a 900 KB full_name on sign-up and on PUT /user, and stores nothing', async () => {
    const huge = 'x'.repeat(900_000);
    const before = await users();
    const signUp = await authFetch(t, '/signup', { body: { email: 'huge@example.com', password: 'quiet-secret-pass', data: { full_name: huge } } });
    expect(signUp.status).toBe(400);
    expect(signUp.body).toMatchObject({ code: 'validation_failed', message: messages.fullNameLong });
    expect(await users()).toBe(before);

    const put = await authFetch(t, '/user', { method: 'PUT', bearer: token, body: { data: { full_name: huge } } });
    expect(put.status).toBe(400);
    expect(put.body).toMatchObject({ code: 'validation_failed', message: messages.fullNameLong });
    expect((await metadata()).full_name).toBe('Ada');
  });

  it(`takes a full_name of ${PROFILE_FULL_NAME_MAX} characters, counted as the database counts them`, async () => {
    const name = '😀'.repeat(PROFILE_FULL_NAME_MAX);
    const r = await authFetch(t, '/signup', { body: { email: 'long-name@example.com', password: 'quiet-secret-pass', data: { full_name: name } } });
    expect(r.status).toBe(200);
    const { rows } = await t.deps.db.query<{ full_name: string }>(
      `select p.full_name from public.profiles p join auth.users u on u.id = p.id where u.email = 'long-name@example.com'`,
    );
    expect(rows[0]!.full_name).toBe(name);
    const tooLong = await authFetch(t, '/user', { method: 'PUT', bearer: token, body: { data: { full_name: `${name}a` } } });
    expect(tooLong.status).toBe(400);
  });

  it('refuses a full_name that is not a string', async () => {
    const before = await users();
    const r = await authFetch(t, '/signup', {
      body: { email: 'object-name@example.com', password: 'quiet-secret-pass', data: { full_name: { first: 'x'.repeat(300) } } },
    });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'validation_failed' });
    expect(await users()).toBe(before);
  });

  it(`refuses metadata beyond ${USER_METADATA_MAX_BYTES} bytes, and changes nothing with it`, async () => {
    const before = await users();
    const big = 'é'.repeat(USER_METADATA_MAX_BYTES / 2);
    const signUp = await authFetch(t, '/signup', { body: { email: 'big@example.com', password: 'quiet-secret-pass', data: { bio: big } } });
    expect(signUp.status).toBe(400);
    expect(signUp.body).toMatchObject({ code: 'validation_failed', message: `User metadata may be at most ${USER_METADATA_MAX_BYTES} bytes of JSON` });
    expect(await users()).toBe(before);

    const stored = await metadata();
    const put = await authFetch(t, '/user', {
      method: 'PUT',
      bearer: token,
      body: { data: { bio: big }, password: 'another-quiet-pass', current_password: 'quiet-secret-pass' },
    });
    expect(put.status).toBe(400);
    expect(put.body).toMatchObject({ code: 'validation_failed' });
    expect(await metadata()).toEqual(stored);
    // The password did not change either.
    const signIn = await t.client().auth.signInWithPassword({ email: 'ada@example.com', password: 'quiet-secret-pass' });
    expect(signIn.error).toBeNull();

    const fits = await authFetch(t, '/user', { method: 'PUT', bearer: token, body: { data: { bio: 'é'.repeat(1000) } } });
    expect(fits.status).toBe(200);
  });

  it('lets metadata stored before the limit shrink, but not grow', async () => {
    await t.deps.db.query(`update auth.users set raw_user_meta_data = raw_user_meta_data || jsonb_build_object('old', repeat('o', 900000)) where id = $1`, [
      userId,
    ]);
    const grow = await authFetch(t, '/user', { method: 'PUT', bearer: token, body: { data: { more: 'm' } } });
    expect(grow.status).toBe(400);
    const shrink = await authFetch(t, '/user', { method: 'PUT', bearer: token, body: { data: { old: null } } });
    expect(shrink.status).toBe(200);
    expect(await metadata()).not.toHaveProperty('old');
  });
});
