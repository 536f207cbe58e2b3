import type { SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAal1, verifyNewFactor } from '../helpers/mfa';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, type TestUser } from '../helpers/users';
import { authFetch } from './helpers';

/**
 * The attack: someone holding only the password of an account with a second factor signs in
 * (aal1) and signs its owner out everywhere, to keep them away while they act.
 */
describe('logout scopes and the second factor', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
  });
  afterAll(() => t.stop());

  const tokenOf = async (sb: SupabaseClient) => (await sb.auth.getSession()).data.session!.access_token;
  const logout = async (sb: SupabaseClient, scope: string) => authFetch(t, `/logout${scope}`, { method: 'POST', bearer: await tokenOf(sb) });
  const sessionsOf = async (user: TestUser) =>
    (await t.deps.db.query<{ id: string }>(`select id from auth.sessions where user_id = $1 order by id`, [user.id])).rows.map((r) => r.id);

  it('an aal1 session of an account with a factor may end only itself', async () => {
    const owner = await createTestUser(t);
    await verifyNewFactor(owner);
    const intruder = await signInAal1(t, owner);
    const all = await sessionsOf(owner);
    expect(all).toHaveLength(2);

    for (const scope of ['?scope=global', '?scope=others', '']) {
      const refused = await logout(intruder, scope);
      expect([refused.status, refused.body?.code]).toEqual([403, 'insufficient_aal']);
      expect(refused.body?.message).toBe('AAL2 session is required to sign out other sessions when MFA is enabled.');
      expect(await sessionsOf(owner)).toEqual(all);
    }
    // The owner's session still works.
    expect((await owner.client.auth.getUser()).error).toBeNull();

    // Signing itself out is always allowed.
    expect((await logout(intruder, '?scope=local')).status).toBe(204);
    expect(await sessionsOf(owner)).toHaveLength(1);
    expect((await owner.client.auth.getUser()).error).toBeNull();
  });

  it('an aal2 session ends the others, then every session', async () => {
    const owner = await createTestUser(t);
    await verifyNewFactor(owner);
    const other = await signInAal1(t, owner);
    const third = await signInAal1(t, owner);
    expect(await sessionsOf(owner)).toHaveLength(3);

    expect((await logout(owner.client, '?scope=others')).status).toBe(204);
    expect(await sessionsOf(owner)).toHaveLength(1);
    for (const ended of [other, third]) expect((await ended.auth.getUser()).error).not.toBeNull();
    expect((await owner.client.auth.getUser()).error).toBeNull();

    const late = await signInAal1(t, owner);
    expect((await logout(late, '?scope=global')).body?.code).toBe('insufficient_aal');
    expect((await logout(owner.client, '?scope=global')).status).toBe(204);
    expect(await sessionsOf(owner)).toEqual([]);
  });

  it('an account without a factor ends every session at aal1', async () => {
    const user = await createTestUser(t);
    const other = t.client();
    expect((await other.auth.signInWithPassword({ email: user.email, password: user.password })).error).toBeNull();
    expect(await sessionsOf(user)).toHaveLength(2);
    expect((await logout(other, '?scope=global')).status).toBe(204);
    expect(await sessionsOf(user)).toEqual([]);
  });
});
