import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signJwt } from '../../src/server/auth/tokens';
import { startTestServer, type TestServer } from '../helpers/server';
import { clientWithToken, installFixtures, rest, userToken } from './fixtures';

describe('REST callers and API keys', () => {
  let s: TestServer;
  const owner = randomUUID();
  beforeAll(async () => {
    s = await startTestServer();
    await installFixtures(s);
    await s.deps.db.query(`insert into public.todos (owner, title) values ($1, 'mine'), ($2, 'theirs')`, [owner, randomUUID()]);
  });
  afterAll(() => s.stop());

  it('anon cannot read rows RLS hides, nor a table with RLS and no policy', async () => {
    const todos = await s.client().from('todos').select('*');
    expect(todos).toMatchObject({ status: 200, data: [] });
    const secrets = await s.client().from('secrets').select('*');
    expect(secrets.data).toEqual([]);
  });

  it('an authenticated user sees only own rows', async () => {
    const c = clientWithToken(s, await userToken(s, owner));
    const { data } = await c.from('todos').select('title, owner');
    expect(data).toEqual([{ title: 'mine', owner }]);
  });

  it('the service role bypasses RLS', async () => {
    const { data } = await s.serviceClient().from('todos').select('title').order('title');
    expect(data).toEqual([{ title: 'mine' }, { title: 'theirs' }]);
  });

  it('a tampered JWT is 401 PGRST301', async () => {
    const token = await userToken(s, owner);
    const [h, p, sig] = token.split('.');
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString()) as Record<string, unknown>;
    const forged = [h, Buffer.from(JSON.stringify({ ...claims, role: 'service_role' })).toString('base64url'), sig].join('.');
    const r = await clientWithToken(s, forged).from('todos').select('*');
    expect(r.status).toBe(401);
    expect(r.error).toMatchObject({ code: 'PGRST301', hint: null, details: null });
    const raw = await rest(s, 'todos', { headers: { Authorization: `Bearer ${forged}` } });
    expect(raw.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    expect(raw.headers.get('proxy-status')).toBe('PostgREST; error=PGRST301');
  });

  it('an expired JWT is 401 PGRST303 "JWT expired"', async () => {
    const past = Math.floor(Date.now() / 1000) - 3600;
    const token = await userToken(s, owner, { iat: past - 3600, exp: past });
    const r = await clientWithToken(s, token).from('todos').select('*');
    expect(r.status).toBe(401);
    expect(r.error).toEqual({ code: 'PGRST303', message: 'JWT expired', details: null, hint: null });
  });

  it('a JWT that never expires (no exp) is 401, however well signed: a leaked one would work for ever', async () => {
    const forever = await userToken(s, owner, { exp: undefined });
    expect(JSON.parse(Buffer.from(forever.split('.')[1]!, 'base64url').toString())).not.toHaveProperty('exp');
    const r = await clientWithToken(s, forever).from('todos').select('*');
    expect(r.status).toBe(401);
    expect(r.error).toMatchObject({ code: 'PGRST303', message: 'missing required "exp" claim' });
  });

  it('a JWT signed with another secret is 401 PGRST301', async () => {
    const now = Math.floor(Date.now() / 1000);
    const other = await signJwt(
      { jwtSecret: new TextEncoder().encode('another-secret-that-is-long-enough-for-hs256-xx') },
      { sub: owner, role: 'authenticated', aud: 'authenticated', iat: now, exp: now + 600 },
    );
    const r = await clientWithToken(s, other).from('todos').select('*');
    expect(r.status).toBe(401);
    expect(r.error).toMatchObject({ code: 'PGRST301' });
    const garbage = await rest(s, 'todos', { headers: { Authorization: 'Bearer not-a-jwt' } });
    expect(garbage.status).toBe(401);
    expect((await garbage.json()).code).toBe('PGRST301');
  });

  it('a JWT naming a role that does not exist is 401', async () => {
    const token = await userToken(s, owner, { role: 'postgres' });
    const r = await clientWithToken(s, token).from('todos').select('*');
    expect(r.status).toBe(401);
    expect(r.error).toMatchObject({ code: '22023', message: 'role "postgres" does not exist' });
  });

  it('a missing or wrong apikey is 401 before anything else', async () => {
    const none = await fetch(`${s.url}/rest/v1/todos`);
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({ message: 'No API key found in request', hint: 'No `apikey` request header or url param was found.' });
    const wrong = await fetch(`${s.url}/rest/v1/todos`, { headers: { apikey: 'nope' } });
    expect(wrong.status).toBe(401);
    expect((await wrong.json()).message).toBe('Invalid API key');
    const inQuery = await fetch(`${s.url}/rest/v1/todos?apikey=${s.anonKey}&select=id`);
    expect(inQuery.status).toBe(200);
  });

  it('CORS lets a browser read Content-Range', async () => {
    const r = await rest(s, 'todos?select=id', { headers: { Origin: 'http://example.test' } });
    expect(r.headers.get('access-control-expose-headers')?.toLowerCase()).toContain('content-range');
  });
});
