import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_LIMITS } from '../../src/server/auth/rate-limits';
import { signJwt, verifiedCacheBytes, VERIFIED_CACHE_BYTES, verifyJwt } from '../../src/server/auth/tokens';
import { createUser } from '../../src/server/auth/users';
import { createJobDeps } from '../../src/server/jobs/app-worker';
import { schedules, taskRegistry } from '../../src/server/jobs/registry';
import { pruneAuth } from '../../src/server/jobs/tasks/prune-auth';
import { startTestServer, type TestServer } from '../helpers/server';
import { authFetch } from './helpers';

/** The attack: refresh without end, to grow the server's memory and the token table. */
describe('refresh without end', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ RATE_LIMITS_ENABLED: 'true', TRUST_PROXY: 'true' });
    await createUser(t.deps.db, { email: 'ada@example.com', password: 'a-long-passphrase' });
  });
  afterAll(() => t.stop());

  const refresh = (token: string, ip: string) =>
    authFetch(t, '/token?grant_type=refresh_token', { body: { refresh_token: token }, headers: { 'x-forwarded-for': ip } });

  async function signedIn(ip: string): Promise<string> {
    const r = await authFetch(t, '/token?grant_type=password', {
      body: { email: 'ada@example.com', password: 'a-long-passphrase' },
      headers: { 'x-forwarded-for': ip },
    });
    expect(r.status).toBe(200);
    return r.body!.refresh_token as string;
  }

  it('is limited per address as GoTrue does (150 per 5 minutes); other addresses keep refreshing', async () => {
    let token = await signedIn('198.51.100.20');
    const refresher = '203.0.113.30';
    for (let i = 0; i < AUTH_LIMITS.tokenPerIp.max; i++) {
      const r = await refresh(token, refresher);
      expect(r.status).toBe(200);
      token = r.body!.refresh_token as string;
    }
    const over = await refresh(token, refresher);
    expect([over.status, over.body?.code]).toEqual([429, 'over_request_rate_limit']);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await refresh(token, '203.0.113.31')).status).toBe(200);
  }, 60_000);

  it('keeps the verified-token cache within its byte budget, however large and many the tokens', async () => {
    const keys = t.deps.keys;
    const now = Math.floor(Date.now() / 1000);
    // Large user_metadata makes large tokens: 1,000 of them are far more than the budget.
    const metadata = { bio: 'x'.repeat(16_000) };
    const claims = { iss: keys.issuer, aud: 'authenticated', sub: 'someone', exp: now + 600 };
    const first = await signJwt(keys, { ...claims, n: 0, user_metadata: metadata });
    await verifyJwt(keys, first);
    for (let n = 1; n < 1000; n++) await verifyJwt(keys, await signJwt(keys, { ...claims, n, user_metadata: metadata }));
    expect(verifiedCacheBytes(keys)).toBeGreaterThan(VERIFIED_CACHE_BYTES / 2);
    expect(verifiedCacheBytes(keys)).toBeLessThanOrEqual(VERIFIED_CACHE_BYTES);
    // An evicted token is simply verified again.
    expect((await verifyJwt(keys, first)).n).toBe(0);
  }, 60_000);

  it('prunes revoked refresh tokens after a day, every hour, and keeps live ones and recent revoked ones', async () => {
    expect(taskRegistry.get('prune-auth')).toBe(pruneAuth);
    expect(schedules(60, 30)).toContainEqual({ task: 'prune-auth', everySeconds: 3600 });
    const first = await signedIn('198.51.100.21');
    const second = (await refresh(first, '198.51.100.21')).body!.refresh_token as string;
    const third = (await refresh(second, '198.51.100.21')).body!.refresh_token as string;
    const count = async (revoked: boolean) =>
      (await t.deps.db.query<{ n: number }>(`select count(*)::int as n from auth.refresh_tokens where revoked = $1`, [revoked])).rows[0]!.n;
    const revokedBefore = await count(true);
    // The oldest of this chain was revoked two days ago; the other just now.
    await t.deps.db.query(
      `update auth.refresh_tokens set updated_at = now() - interval '2 days'
        where revoked and parent is null and session_id = (select session_id from auth.refresh_tokens order by id desc limit 1)`,
    );
    await t.deps.db.query(`insert into nodeharbor.rate_limits (key, window_start, count) values ('auth:old', now() - interval '2 days', 99)`);
    const liveBefore = await count(false);
    await pruneAuth.run({}, await createJobDeps(t.deps));
    expect(await count(true)).toBe(revokedBefore - 1);
    expect(await count(false)).toBe(liveBefore);
    expect((await t.deps.db.query(`select 1 from nodeharbor.rate_limits where key = 'auth:old'`)).rowCount).toBe(0);
    // The chain's live token still refreshes; the pruned one is unknown.
    expect((await refresh(third, '198.51.100.21')).status).toBe(200);
    expect((await refresh(first, '198.51.100.21')).body?.code).toBe('refresh_token_not_found');
  });
});
