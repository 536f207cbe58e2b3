import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signJwt } from '../../src/server/auth/tokens';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, type TestUser } from '../helpers/users';
import { authFetch, claimsOf } from './helpers';

/**
 * Issue 33, item 8: a token signed with our key is taken only with the issuer and audience GoTrue
 * gives it (supabase-wire §2.6): `iss` this site's /auth/v1 and `aud` "authenticated". The API
 * keys, in Supabase's format, have `iss` "supabase" and no `aud`, and keep working.
 */
describe('the issuer and audience of a JWT', () => {
  let t: TestServer;
  let user: TestUser;
  beforeAll(async () => {
    t = await startTestServer();
    user = await createTestUser(t);
  });
  afterAll(() => t.stop());

  /** The user's own access token, signed again with our key and `changes` to its claims. */
  const resigned = (changes: Record<string, unknown>) => signJwt(t.deps.keys, { ...claimsOf(user.token), ...changes });
  const restRead = (bearer: string) =>
    fetch(`${t.url}/rest/v1/user_credits?select=balance`, { headers: { apikey: t.anonKey, Authorization: `Bearer ${bearer}` } });

  it('signs access tokens with this site as the issuer and "authenticated" as the audience', () => {
    expect(claimsOf(user.token)).toMatchObject({ iss: `${t.url}/auth/v1`, aud: 'authenticated' });
  });

  it('GoTrue refuses a well-signed token from another issuer, or for another audience, with its errors', async () => {
    for (const iss of ['https://evil.example/auth/v1', 'supabase', undefined]) {
      const r = await authFetch(t, '/user', { bearer: await resigned({ iss }) });
      expect([r.status, r.body?.code, r.body?.message]).toEqual([
        403,
        'bad_jwt',
        'invalid JWT: unable to parse or verify signature, token has invalid claims: token has invalid issuer',
      ]);
    }
    for (const aud of ['service', ['other', 'authenticated'], undefined]) {
      const r = await authFetch(t, '/user', { bearer: await resigned({ aud }) });
      expect([r.status, r.body?.code, r.body?.message]).toEqual([400, 'validation_failed', "Token audience doesn't match request audience"]);
    }
    expect((await authFetch(t, '/user', { bearer: user.token })).body?.id).toBe(user.id);
  });

  it('PostgREST refuses them with 401 PGRST303, and still takes the token as issued', async () => {
    const wrongAud = await restRead(await resigned({ aud: 'service' }));
    expect(wrongAud.status).toBe(401);
    expect(await wrongAud.json()).toEqual({ code: 'PGRST303', message: 'JWT not in audience', details: null, hint: null });
    for (const iss of ['https://evil.example/auth/v1', 'supabase']) {
      const wrongIss = await restRead(await resigned({ iss }));
      expect(wrongIss.status).toBe(401);
      expect(await wrongIss.json()).toEqual({ code: 'PGRST303', message: 'JWT issuer is not accepted', details: null, hint: null });
    }
    const ok = await restRead(user.token);
    expect(ok.status).toBe(200);
  });

  it('takes the anon and service_role keys, which carry no audience, and no other token without one', async () => {
    expect(claimsOf(t.anonKey)).not.toHaveProperty('aud');
    const anon = await t.client().from('products').select('id').limit(1);
    expect(anon.status).toBe(200);
    const service = await t.serviceClient().from('user_credits').select('balance').eq('user_id', user.id);
    expect(service.status).toBe(200);
    // An API key's shape with another issuer is not an API key of ours.
    const now = Math.floor(Date.now() / 1000);
    const forged = await signJwt(t.deps.keys, { iss: 'someone-else', role: 'service_role', iat: now, exp: now + 600 });
    const r = await fetch(`${t.url}/rest/v1/user_credits?select=balance`, { headers: { apikey: t.anonKey, Authorization: `Bearer ${forged}` } });
    expect(r.status).toBe(401);
    expect(((await r.json()) as { code: string }).code).toBe('PGRST303');
  });
});
