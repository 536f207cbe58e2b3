import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/server/auth/users';
import { startTestServer, type TestServer } from '../helpers/server';
import { authFetch } from './helpers';

describe('hostile input to /auth/v1', () => {
  let t: TestServer;
  let accessToken: string;
  beforeAll(async () => {
    t = await startTestServer({ REGISTRATION_ENABLED: 'true', RATE_LIMITS_ENABLED: 'false' });
    await createUser(t.deps.db, { email: 'ada@example.com', password: 'quiet-secret-pass' });
    const { data } = await t.client().auth.signInWithPassword({ email: 'ada@example.com', password: 'quiet-secret-pass' });
    accessToken = data.session!.access_token;
  });
  afterAll(() => t.stop());

  const nul = 'a\u0000b';
  const huge = 'x'.repeat(200_000);
  const cases: [string, string, unknown][] = [
    ['POST', '/token?grant_type=password', { email: `ada${nul}@example.com`, password: 'quiet-secret-pass' }],
    ['POST', '/token?grant_type=password', { email: huge, password: huge }],
    ['POST', '/token?grant_type=password', { email: "ada@example.com' or '1'='1", password: "' or 1=1 --" }],
    ['POST', '/token?grant_type=password', { email: ['ada@example.com'], password: 'quiet-secret-pass' }],
    ['POST', '/token?grant_type=password', { email: { $ne: null }, password: 'quiet-secret-pass' }],
    ['POST', '/token?grant_type=refresh_token', { refresh_token: nul }],
    ['POST', '/token?grant_type=refresh_token', { refresh_token: huge }],
    ['POST', '/token?grant_type=refresh_token', { refresh_token: 42 }],
    ['POST', '/token', {}],
    ['POST', '/recover', { email: `ada${nul}@example.com` }],
    ['POST', '/recover', { email: huge }],
    ['POST', '/signup', { email: `x${nul}@example.com`, password: 'quiet-secret-pass' }],
    ['POST', '/signup', { email: 'y@example.com', password: 'quiet-secret-pass', data: { full_name: nul } }],
    ['POST', '/signup', { email: 'z@example.com', password: nul.repeat(3) }],
    ['PUT', '/user', { data: { company: nul } }],
    ['PUT', '/user', { data: { [nul]: 1 } }],
    ['PUT', '/user', { data: [1, 2] }],
    ['PUT', '/user', { password: 12345678 }],
    ['PUT', '/user', { email: nul }],
    ['GET', `/verify?token=${encodeURIComponent(nul)}&type=recovery`, undefined],
    ['GET', `/verify?token=x&type=recovery&redirect_to=${encodeURIComponent(`http://localhost:8080/${nul}`)}`, undefined],
  ];

  it('answers every one with a 4xx (or a redirect for verify), never a 5xx, and changes nothing', async () => {
    const before = await t.deps.db.query(`select id, email, encrypted_password, raw_user_meta_data from auth.users order by id`);
    for (const [method, path, body] of cases) {
      const r = await authFetch(t, path, { method, body, bearer: accessToken });
      const ok = path.startsWith('/verify') ? [303, 400].includes(r.status) : r.status >= 400 && r.status < 500;
      expect(ok, `${method} ${path} ${JSON.stringify(body)?.slice(0, 80)} → ${r.status}`).toBe(true);
    }
    const after = await t.deps.db.query(`select id, email, encrypted_password, raw_user_meta_data from auth.users order by id`);
    expect(after.rows).toEqual(before.rows);
  });
});
