import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_LIMITS } from '../../src/server/auth/rate-limits';
import { createUser } from '../../src/server/auth/users';
import { NEW_ADDRESS_LINK_CODE } from '../../src/shared/constants';
import { messages } from '../../src/shared/validation';
import { runDueJobs } from '../helpers/jobs';
import { startTestServer, type TestServer } from '../helpers/server';
import { authFetch } from './helpers';

describe('auth rate limits', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ RATE_LIMITS_ENABLED: 'true' });
    await createUser(t.deps.db, { email: 'ada@example.com', password: 'quiet-secret-pass' });
  });
  afterAll(() => t.stop());

  it('limits password attempts per e-mail, in GoTrue shape', async () => {
    const max = AUTH_LIMITS.passwordFailuresPerEmail.max;
    for (let i = 0; i < max; i++) {
      const r = await authFetch(t, '/token?grant_type=password', { body: { email: 'ada@example.com', password: 'wrong-pass' } });
      expect(r.status).toBe(400);
    }
    // From an address the account has not signed in from, the answer points to the e-mailed link.
    const { error } = await t.client().auth.signInWithPassword({ email: 'ada@example.com', password: 'quiet-secret-pass' });
    expect([error?.status, error?.code, error?.message]).toEqual([429, NEW_ADDRESS_LINK_CODE, messages.newAddressLinkSent]);
    const raw = await authFetch(t, '/token?grant_type=password', { body: { email: 'ADA@example.com', password: 'quiet-secret-pass' } });
    expect(raw.status).toBe(429);
    expect(raw.headers.get('x-sb-error-code')).toBe(NEW_ADDRESS_LINK_CODE);
    expect(Number(raw.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address from the same client is still let through.
    const other = await authFetch(t, '/token?grant_type=password', { body: { email: 'else@example.com', password: 'x-pass' } });
    expect(other.status).toBe(400);
  });

  it('sends one recovery mail per address per minute, whether or not the account exists', async () => {
    for (const email of ['ada@example.com', 'nobody@example.com']) {
      expect((await t.client().auth.resetPasswordForEmail(email)).error).toBeNull();
      const { error } = await t.client().auth.resetPasswordForEmail(email);
      expect([error?.status, error?.code]).toEqual([429, 'over_email_send_rate_limit']);
      expect(error?.message).toMatch(/^For security purposes, you can only request this after \d+ seconds\.$/);
    }
    await runDueJobs(t);
    const { rows } = await t.deps.db.query<{ n: number }>(`select count(*)::int as n from nodeharbor.outbox where subject = 'Reset your NodeHarbor password'`);
    expect(rows[0]!.n).toBe(1);
  });

  it('limits recovery requests per client address', async () => {
    const statuses = new Set<number>();
    for (let i = 0; i <= AUTH_LIMITS.recoverPerIp.max; i++) {
      const r = await authFetch(t, '/recover', { body: { email: `someone${i}@example.com` } });
      statuses.add(r.status);
      if (r.status === 429) expect(r.body?.code).toBe('over_request_rate_limit');
    }
    // With the requests of the test above (same client address), the loop runs past the limit.
    expect(statuses).toEqual(new Set([200, 429]));
  });
});

describe('rate limits behind a proxy (TRUST_PROXY)', () => {
  let t: TestServer;
  afterAll(() => t?.stop());

  // The proxy appends the address it saw; whatever the client wrote itself stands to the left.
  it('counts the address the trusted proxy saw, not the one the client wrote in X-Forwarded-For', async () => {
    t = await startTestServer({ RATE_LIMITS_ENABLED: 'true', TRUST_PROXY: 'true' });
    const statuses: number[] = [];
    for (let i = 0; i <= AUTH_LIMITS.recoverPerIp.max; i++) {
      const r = await authFetch(t, '/recover', {
        body: { email: `proxied${i}@example.com` },
        headers: { 'x-forwarded-for': `198.51.100.${i}, 203.0.113.7` },
      });
      statuses.push(r.status);
    }
    expect(statuses.at(-1)).toBe(429);
    // Another client behind the same proxy has its own allowance.
    const other = await authFetch(t, '/recover', { body: { email: 'other@example.com' }, headers: { 'x-forwarded-for': '203.0.113.8' } });
    expect(other.status).toBe(200);
  });
});
