import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/server/auth/users';
import type { Queryable } from '../../src/server/db/database';
import { runDueJobs } from '../helpers/jobs';
import { startTestServer, type TestServer } from '../helpers/server';
import { authFetch, claimsOf } from './helpers';

describe('password recovery', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
    await createUser(t.deps.db, { email: 'ada@example.com', password: 'old-harbor-password' });
  });
  afterAll(() => t.stop());

  /** The mails to an address once the queued recovery jobs have run. */
  async function mailsTo(address: string) {
    await runDueJobs(t);
    const { rows } = await t.deps.db.query<{ subject: string; text_body: string; html_body: string }>(
      `select subject, text_body, html_body from nodeharbor.outbox where to_address = $1 order by id`,
      [address],
    );
    return rows;
  }

  /** The verify link of the newest mail, pointed at the test server (PUBLIC_URL is the default). */
  async function latestLink(address: string): Promise<URL> {
    const mails = await mailsTo(address);
    const text = mails.at(-1)!.text_body;
    const link = new URL(/https?:\/\/\S+/.exec(text)![0]);
    expect(link.origin + link.pathname).toBe(`${t.deps.config.publicUrl}/auth/v1/verify`);
    return new URL(link.pathname + link.search, t.url);
  }

  /** Opens a link as a browser would, without the apikey, not following the redirect. */
  async function open(link: URL) {
    const res = await fetch(link, { redirect: 'manual' });
    return { status: res.status, location: res.headers.get('location') ?? '' };
  }

  it('mails a one-time link whose redirect carries a recovery session; the new password then works', async () => {
    const sb = t.client();
    // Another port of the site's local host, as the Vite dev server would be.
    const redirectTo = `http://${new URL(t.deps.config.publicUrl).hostname}:5173/reset-password-confirm`;
    const { data, error } = await sb.auth.resetPasswordForEmail('Ada@Example.com', { redirectTo });
    expect(error).toBeNull();
    expect(data).toEqual({});
    const mails = await mailsTo('ada@example.com');
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toMatch(/password/i);
    const link = await latestLink('ada@example.com');
    expect(link.searchParams.get('type')).toBe('recovery');
    expect(link.searchParams.get('redirect_to')).toBe(redirectTo);
    // Only a hash of the token is stored.
    const { rows } = await t.deps.db.query<{ recovery_token: string }>(`select recovery_token from auth.users where email = 'ada@example.com'`);
    expect(rows[0]!.recovery_token).not.toContain(link.searchParams.get('token'));

    expect((await fetch(link, { method: 'HEAD', redirect: 'manual' })).status).toBe(405);
    const res = await open(link);
    expect(res.status).toBe(303);
    const [target, fragment] = res.location.split('#');
    expect(target).toBe(redirectTo);
    const params = new URLSearchParams(fragment);
    expect([...params.keys()]).toEqual(['access_token', 'expires_at', 'expires_in', 'refresh_token', 'sb', 'token_type', 'type']);
    expect(params.get('token_type')).toBe('bearer');
    expect(params.get('type')).toBe('recovery');
    expect(params.get('expires_in')).toBe('3600');
    const accessToken = params.get('access_token')!;
    expect(claimsOf(accessToken).amr).toEqual([{ method: 'otp', timestamp: expect.any(Number) }]);

    const page = t.client();
    const set = await page.auth.setSession({ access_token: accessToken, refresh_token: params.get('refresh_token')! });
    expect(set.error).toBeNull();
    expect(set.data.user?.email).toBe('ada@example.com');
    // The reset page is held to the same policy: a common password is refused there too.
    expect((await page.auth.updateUser({ password: 'password1' })).error?.code).toBe('weak_password');
    // The link proved who this is: no current password is asked for.
    expect((await page.auth.updateUser({ password: 'new-harbor-password' })).error).toBeNull();
    expect((await page.auth.signOut()).error).toBeNull();

    expect((await t.client().auth.signInWithPassword({ email: 'ada@example.com', password: 'old-harbor-password' })).error?.code).toBe('invalid_credentials');
    expect((await t.client().auth.signInWithPassword({ email: 'ada@example.com', password: 'new-harbor-password' })).error).toBeNull();

    // The link works once.
    const again = await open(link);
    expect(again.status).toBe(303);
    expect(again.location).toBe(`${redirectTo}#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired&sb=`);
  });

  it('answers the same for an unknown address, and sends nothing', async () => {
    const { data, error } = await t.client().auth.resetPasswordForEmail('nobody@example.com');
    expect(error).toBeNull();
    expect(data).toEqual({});
    expect(await mailsTo('nobody@example.com')).toHaveLength(0);
  });

  /**
   * The attack: time /recover to learn which addresses have accounts. The request must do the
   * same work for both: here, the same database statements, ending in one queued job each.
   */
  it('does the same work for a real and an unknown address: one queued job, nothing else', async () => {
    await runDueJobs(t);
    const work = async (email: string) => {
      const db = t.deps.db;
      const statements: string[] = [];
      const original = { query: db.query, transaction: db.transaction, batch: db.batch };
      const counted = (q: Queryable): Queryable => ({
        query: (sql, params, name) => (statements.push(sql), q.query(sql, params, name)),
        exec: (sql) => (statements.push(sql), q.exec(sql)),
      });
      db.query = (sql, params, name) => (statements.push(sql), original.query.call(db, sql, params, name)) as never;
      db.transaction = (fn) => (statements.push('begin'), original.transaction.call(db, (tx) => fn(counted(tx)))) as never;
      db.batch = (list) => (statements.push(...list.map((x) => x.sql)), original.batch.call(db, list));
      try {
        const r = await authFetch(t, '/recover', { body: { email } });
        expect(r.status).toBe(200);
      } finally {
        Object.assign(db, original);
      }
      return statements;
    };
    const before = (await t.deps.db.query<{ token: string | null }>(`select recovery_token as token from auth.users where email = 'ada@example.com'`)).rows[0]!
      .token;
    const real = await work('ada@example.com');
    const unknown = await work('nobody-at-all@example.com');
    expect(unknown).toEqual(real);
    // Nothing about the account was touched by the request itself: the job does that.
    const { rows: jobs } = await t.deps.db.query<{ email: string }>(
      `select payload ->> 'email' as email from nodeharbor.jobs where task = 'send-recovery' and status = 'pending' order by id`,
    );
    expect(jobs.map((j) => j.email)).toEqual(['ada@example.com', 'nobody-at-all@example.com']);
    const after = (await t.deps.db.query<{ token: string | null }>(`select recovery_token as token from auth.users where email = 'ada@example.com'`)).rows[0]!
      .token;
    expect(after).toBe(before);
    expect(await mailsTo('nobody-at-all@example.com')).toHaveLength(0);
    expect((await mailsTo('ada@example.com')).length).toBeGreaterThan(0);
  });

  it('mails once per request, even when its job runs again', async () => {
    await runDueJobs(t);
    await t.deps.db.query(`delete from nodeharbor.outbox`);
    expect((await authFetch(t, '/recover', { body: { email: 'ada@example.com' } })).status).toBe(200);
    const link = await latestLink('ada@example.com');
    await t.deps.db.query(
      `update nodeharbor.jobs set status = 'pending', finished_at = null, run_at = now()
        where id = (select max(id) from nodeharbor.jobs where task = 'send-recovery')`,
    );
    expect(await mailsTo('ada@example.com')).toHaveLength(1);
    // The mailed link is still the valid one.
    expect((await open(link)).location).toContain('access_token=');
  });

  it('replaces a foreign redirect with the reset page of the public URL', async () => {
    for (const redirectTo of ['https://evil.example/steal', 'http://localhost@evil.example/x', 'javascript:alert(1)', 'not a url']) {
      await t.deps.db.query(`delete from nodeharbor.outbox`);
      const r = await authFetch(t, `/recover?redirect_to=${encodeURIComponent(redirectTo)}`, { body: { email: 'ada@example.com' } });
      expect(r.status).toBe(200);
      const link = await latestLink('ada@example.com');
      expect(link.searchParams.get('redirect_to')).toBe(`${t.deps.config.publicUrl}/reset-password-confirm`);
    }
  });

  it('refuses an expired link, and a link whose redirect was changed still lands on our own site', async () => {
    await t.client().auth.resetPasswordForEmail('ada@example.com');
    const link = await latestLink('ada@example.com');
    await t.deps.db.query(`update auth.users set recovery_sent_at = now() - interval '61 minutes' where email = 'ada@example.com'`);
    const expired = await open(link);
    expect(expired.location).toContain('#error=access_denied&error_code=otp_expired');
    link.searchParams.set('redirect_to', 'https://evil.example/');
    const moved = await open(link);
    expect(moved.location.startsWith(`${t.deps.config.publicUrl}/reset-password-confirm#error=`)).toBe(true);
  });

  it('validates recover and verify input', async () => {
    const empty = await authFetch(t, '/recover', { body: { email: '' } });
    expect([empty.status, empty.body?.code, empty.body?.message]).toEqual([400, 'validation_failed', 'Password recovery requires an email']);
    const bad = await authFetch(t, '/recover', { body: { email: 'not-an-address' } });
    expect([bad.status, bad.body?.message]).toEqual([400, 'Unable to validate email address: invalid format']);
    const noToken = await fetch(`${t.url}/auth/v1/verify?type=recovery`, { redirect: 'manual' });
    expect(noToken.status).toBe(400);
    const badType = await fetch(`${t.url}/auth/v1/verify?token=x&type=sideways`, { redirect: 'manual' });
    expect(badType.status).toBe(400);
    const wrong = await open(new URL(`${t.url}/auth/v1/verify?token=guess&type=recovery`));
    expect(wrong.location).toContain('#error=access_denied&error_code=otp_expired');
  });
});
