import type { SupabaseClient } from '@supabase/supabase-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/shared/validation';
import { createJobDeps } from '../../src/server/jobs/app-worker';
import { sendRecovery } from '../../src/server/jobs/tasks/send-recovery';
import { signInAal1, verifyNewFactor } from '../helpers/mfa';
import { startTestServer, type TestServer } from '../helpers/server';
import { createService, createTestUser, type TestUser } from '../helpers/users';
import { expectLedgerBalanced } from '../helpers/ledger';

// The admin's page of one user (issue 19, migration 0024): what it reads, what it does, the audit
// entry of each change, and every refusal, which changes nothing.

let s: TestServer;
let admin: TestUser;

type Entry = {
  actor: string;
  actor_id: string | null;
  action: string;
  target_type: string;
  target_id: string;
  target_label: string;
  before: unknown;
  after: unknown;
  address: string | null;
  user_agent: string | null;
};

beforeAll(async () => {
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
  admin = await createTestUser(s, { admin: true });
});
// Money moves here: every balance stays its ledger's sum.
afterEach(() => expectLedgerBalanced(s.deps.db));
afterAll(() => s.stop());

const rpc = async <T>(client: SupabaseClient, fn: string, args: Record<string, unknown>) => {
  const { data, error } = await client.rpc(fn, args);
  if (error) throw error;
  return data as T;
};
const audit = async (target: string, action?: string) =>
  (await rpc<Entry[]>(admin.client, 'admin_audit_log', { p_target: target, p_action: action ?? null })).map(
    ({ actor, actor_id, action: a, target_type, target_id, target_label, before, after, address, user_agent }) => ({
      actor,
      actor_id,
      action: a,
      target_type,
      target_id,
      target_label,
      before,
      after,
      address,
      user_agent,
    }),
  );
const auditCount = async () => (await s.deps.db.query<{ n: number }>('select count(*)::int as n from private.admin_audit_log')).rows[0]!.n;
const account = async (id: string) =>
  (
    await s.deps.db.query<{ banned_until: Date | null; deleted_at: Date | null; sessions: number; dev: boolean }>(
      `select u.banned_until, u.deleted_at, (select count(*)::int from auth.sessions x where x.user_id = u.id) as sessions,
            exists (select 1 from public.dev_access_users d where d.user_id = u.id) as dev
       from auth.users u where u.id = $1`,
      [id],
    )
  ).rows[0]!;
const signIn = (u: TestUser) => s.client().auth.signInWithPassword({ email: u.email, password: u.password });
const fromAdmin = {
  actor: expect.any(String),
  actor_id: expect.any(String),
  address: expect.stringMatching(/127\.0\.0\.1|::1/),
  user_agent: expect.any(String),
};

describe('reading one user', () => {
  it('answers the profile, balance, services and counts, then the ledger, purchases and events in pages, newest first', async () => {
    const user = await createTestUser(s, { credits: 40, fullName: 'Grace Hopper' });
    const failed = await createService(user, 'broken');
    await s.deps.db.query(`select private.fail_service_installation($1, 'No such image: x')`, [failed]);
    const installing = await createService(user, 'fresh');
    await s.deps.db.query(
      `insert into public.credit_purchases (user_id, amount, status, provider) values ($1, 25, 'completed', 'test'), ($1, 5, 'pending', 'paypal')`,
      [user.id],
    );

    const page = await rpc<Record<string, unknown>>(admin.client, 'admin_user', { p_user_id: user.id });
    expect(page).toMatchObject({
      id: user.id,
      email: user.email,
      full_name: 'Grace Hopper',
      email_confirmed_at: expect.any(String),
      last_sign_in_at: expect.any(String),
      is_admin: false,
      has_dev_access: false,
      suspended: false,
      suspended_until: null,
      second_factor: false,
      // The failed installation's $10 came back to the balance (migration 0050).
      balance: 30,
      counts: { transactions: 4, purchases: 2, events: 3 },
    });
    expect(page.services).toEqual([
      // Its margin a month: Town Star's $10 less its server's seeded $4.81; none for a service with no node.
      expect.objectContaining({ id: installing, name: 'fresh', product: 'Town Star', service_state: 'installing', node_state: null, monthly_margin: 5.19 }),
      expect.objectContaining({
        id: failed,
        name: 'broken',
        service_state: 'failed',
        node_state: null,
        provisioning_error: 'No such image: x',
        monthly_margin: null,
        // Its charge went back to its owner: only they can retry it.
        install_refunded: true,
      }),
    ]);

    const ledger = await rpc<{ type: string; amount: number; service_name: string | null; total_count: number }[]>(admin.client, 'admin_user_transactions', {
      p_user_id: user.id,
    });
    expect(ledger.map((t) => [t.type, Number(t.amount), t.service_name])).toEqual([
      ['service_charge', -10, 'fresh'],
      ['refund', 10, 'broken'],
      ['service_charge', -10, 'broken'],
      ['admin_credit', 40, null],
    ]);
    const second = await rpc<{ amount: number; total_count: number }[]>(admin.client, 'admin_user_transactions', {
      p_user_id: user.id,
      p_limit: 1,
      p_offset: 1,
    });
    expect(second.map((t) => [Number(t.amount), t.total_count])).toEqual([[10, 4]]);

    const purchases = await rpc<{ amount: number; status: string; provider: string }[]>(admin.client, 'admin_user_purchases', { p_user_id: user.id });
    expect(purchases.map((p) => [Number(p.amount), p.status, p.provider]).sort()).toEqual(
      [
        [25, 'completed', 'test'],
        [5, 'pending', 'paypal'],
      ].sort(),
    );

    const events = await rpc<{ service_name: string; event: string; detail: unknown }[]>(admin.client, 'admin_user_events', { p_user_id: user.id });
    expect(events.map((e) => [e.service_name, e.event])).toEqual([
      ['fresh', 'install_requested'],
      ['broken', 'install_failed'],
      ['broken', 'install_requested'],
    ]);
  });

  it('tells a suspended account, its second factor and its roles', async () => {
    const user = await createTestUser(s, { devAccess: true });
    await verifyNewFactor(user);
    const until = new Date(Date.now() + 86_400_000).toISOString();
    await rpc(admin.client, 'admin_suspend_user', { p_user_id: user.id, p_until: until });
    expect(await rpc(admin.client, 'admin_user', { p_user_id: user.id })).toMatchObject({
      has_dev_access: true,
      second_factor: true,
      suspended: true,
      suspended_until: expect.any(String),
    });
    const self = await rpc(admin.client, 'admin_user', { p_user_id: admin.id });
    expect(self).toMatchObject({ is_admin: true, services: [] });
  });

  it('answers null for an unknown or closed account, which the page tells as not found', async () => {
    for (const id of ['00000000-0000-4000-8000-00000000dead', null]) {
      expect(await admin.client.rpc('admin_user', { p_user_id: id })).toMatchObject({ status: 200, data: null, error: null });
    }
    const gone = await createTestUser(s);
    expect((await gone.client.rpc('delete_own_account', { p_email: gone.email })).error).toBeNull();
    expect((await admin.client.rpc('admin_user', { p_user_id: gone.id })).data).toBeNull();
  });
});

describe('acting on one user, each change audited', () => {
  it('grants and revokes dev access, recording each change once', async () => {
    const user = await createTestUser(s);
    expect(await rpc(admin.client, 'admin_set_dev_access', { p_user_id: user.id, p_granted: true })).toBe(true);
    expect(await rpc(admin.client, 'admin_set_dev_access', { p_user_id: user.id, p_granted: true })).toBe(true);
    expect((await account(user.id)).dev).toBe(true);
    expect(await rpc(user.client, 'has_dev_access', { user_uuid: user.id })).toBe(true);
    expect(await rpc(admin.client, 'admin_set_dev_access', { p_user_id: user.id, p_granted: false })).toBe(false);
    expect((await account(user.id)).dev).toBe(false);
    expect(await audit(user.id)).toEqual([
      {
        ...fromAdmin,
        actor: admin.email,
        actor_id: admin.id,
        action: 'role.dev_access.revoke',
        target_type: 'user',
        target_id: user.id,
        target_label: user.email,
        before: { granted: true },
        after: { granted: false },
      },
      {
        ...fromAdmin,
        actor: admin.email,
        actor_id: admin.id,
        action: 'role.dev_access.grant',
        target_type: 'user',
        target_id: user.id,
        target_label: user.email,
        before: { granted: false },
        after: { granted: true },
      },
    ]);
  });

  it('suspends: sign-in and refresh are refused with the message, sessions end, services stay; reactivation lets them in again', async () => {
    const user = await createTestUser(s, { credits: 10 });
    const service = await createService(user, 'kept');
    const { data: session } = await signIn(user);
    expect((await account(user.id)).sessions).toBe(2);

    await rpc(admin.client, 'admin_suspend_user', { p_user_id: user.id });
    expect(await account(user.id)).toMatchObject({ sessions: 0, banned_until: expect.anything() });
    const signedIn = await signIn(user);
    expect(signedIn.error).toMatchObject({ code: 'user_banned', message: messages.accountSuspended });
    // Their tokens are dead at once: the session is gone, so the API and the refresh refuse them.
    expect((await user.client.from('profiles').select('id')).error).not.toBeNull();
    const refreshed = await s.client().auth.refreshSession({ refresh_token: session.session!.refresh_token });
    expect(refreshed.error).not.toBeNull();
    // Services and data stay.
    expect((await s.deps.db.query(`select state from private.services where id = $1`, [service])).rows).toEqual([{ state: 'installing' }]);

    expect(await audit(user.id, 'user.suspend')).toEqual([
      {
        ...fromAdmin,
        actor: admin.email,
        actor_id: admin.id,
        action: 'user.suspend',
        target_type: 'user',
        target_id: user.id,
        target_label: user.email,
        before: { suspended_until: null },
        after: { suspended_until: 'infinity', sessions_ended: 2 },
      },
    ]);

    await rpc(admin.client, 'admin_reactivate_user', { p_user_id: user.id });
    expect((await account(user.id)).banned_until).toBeNull();
    expect((await signIn(user)).error).toBeNull();
    expect(await audit(user.id, 'user.reactivate')).toEqual([
      {
        ...fromAdmin,
        actor: admin.email,
        actor_id: admin.id,
        action: 'user.reactivate',
        target_type: 'user',
        target_id: user.id,
        target_label: user.email,
        before: { suspended_until: 'infinity' },
        after: { suspended_until: null },
      },
    ]);
  });

  it('refuses the refresh of a session that outlived a suspension with the same message', async () => {
    // The operator's SQL, not the admin's page (which ends every session): the refresh must still refuse.
    const user = await createTestUser(s);
    const { data } = await signIn(user);
    await s.deps.db.query(`update auth.users set banned_until = now() + interval '1 hour' where id = $1`, [user.id]);
    const refreshed = await s.client().auth.refreshSession({ refresh_token: data.session!.refresh_token });
    expect(refreshed.error).toMatchObject({ code: 'user_banned', message: `Invalid Refresh Token: ${messages.accountSuspended}` });
  });

  it('a timed suspension ends by itself', async () => {
    const user = await createTestUser(s);
    await rpc(admin.client, 'admin_suspend_user', { p_user_id: user.id, p_until: new Date(Date.now() + 3_600_000).toISOString() });
    expect((await signIn(user)).error?.message).toBe(messages.accountSuspended);
    await s.deps.db.query(`update auth.users set banned_until = now() - interval '1 second' where id = $1`, [user.id]);
    expect((await signIn(user)).error).toBeNull();
    expect((await admin.client.rpc('admin_reactivate_user', { p_user_id: user.id })).error).toMatchObject({ message: messages.adminNotSuspended });
  });

  it('sends the recovery e-mail of /reset-password, whose link works', async () => {
    const user = await createTestUser(s);
    await rpc(admin.client, 'admin_send_password_reset', { p_user_id: user.id });
    // The queued job, run as the worker runs it (the other tests' installs stay queued).
    const { rows: jobs } = await s.deps.db.query<{ payload: unknown }>(
      `select payload from nodeharbor.jobs where task = 'send-recovery' and payload ->> 'email' = $1`,
      [user.email],
    );
    expect(jobs).toHaveLength(1);
    await sendRecovery.run(sendRecovery.payload.parse(jobs[0]!.payload), await createJobDeps(s.deps));
    const mails = (
      await s.deps.db.query<{ subject: string; text_body: string }>(`select subject, text_body from nodeharbor.outbox where to_address = $1`, [user.email])
    ).rows;
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toMatch(/password/i);
    const link = new URL(/https?:\/\/\S+/.exec(mails[0]!.text_body)![0]);
    expect(link.origin + link.pathname).toBe(`${s.deps.config.publicUrl}/auth/v1/verify`);
    expect(link.searchParams.get('redirect_to')).toBe(`${s.deps.config.publicUrl}/reset-password-confirm`);
    const res = await fetch(new URL(link.pathname + link.search, s.url), { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toContain('access_token=');
    expect(await audit(user.id, 'user.password_reset_link')).toEqual([
      {
        ...fromAdmin,
        actor: admin.email,
        actor_id: admin.id,
        action: 'user.password_reset_link',
        target_type: 'user',
        target_id: user.id,
        target_label: user.email,
        before: null,
        after: { sent_to: user.email },
      },
    ]);
  });

  it('deletes an account as its owner would, keeping the ledger', async () => {
    const user = await createTestUser(s, { credits: 30 });
    const service = await createService(user, 'doomed');
    await s.deps.db.query(`select private.fail_service_installation($1, 'x')`, [service]);
    const wrong = await admin.client.rpc('admin_delete_user', { p_user_id: user.id, p_email: 'someone@else.test' });
    expect(wrong.error?.message).toBe(messages.adminDeleteEmailMismatch);
    expect((await account(user.id)).deleted_at).toBeNull();

    await rpc(admin.client, 'admin_delete_user', { p_user_id: user.id, p_email: user.email.toUpperCase() });
    expect((await account(user.id)).deleted_at).not.toBeNull();
    expect((await s.deps.db.query(`select state from private.services where id = $1`, [service])).rows).toEqual([{ state: 'deleting' }]);
    // The credit, the order's charge and its refund when the installation failed.
    expect((await s.deps.db.query<{ n: number }>(`select count(*)::int as n from public.credit_transactions where user_id = $1`, [user.id])).rows[0]!.n).toBe(
      3,
    );
    expect((await signIn(user)).error?.message).toBe('Invalid login credentials');
    expect(await audit(user.id, 'user.delete')).toEqual([
      {
        ...fromAdmin,
        actor: admin.email,
        actor_id: admin.id,
        action: 'user.delete',
        target_type: 'user',
        target_id: user.id,
        target_label: user.email,
        before: { email: user.email, balance: '30.00' },
        after: { deleted: true },
      },
    ]);
  });

  it('refuses to delete an account while one of its services installs', async () => {
    const user = await createTestUser(s, { credits: 10 });
    await createService(user, 'busy');
    const { error } = await admin.client.rpc('admin_delete_user', { p_user_id: user.id, p_email: user.email });
    expect(error?.message).toBe(messages.adminDeleteInstalling);
    expect((await account(user.id)).deleted_at).toBeNull();
  });

  it('refuses a reset link for a suspended account', async () => {
    const user = await createTestUser(s);
    await rpc(admin.client, 'admin_suspend_user', { p_user_id: user.id });
    const before = await auditCount();
    const { error } = await admin.client.rpc('admin_send_password_reset', { p_user_id: user.id });
    expect(error?.message).toBe(messages.adminResetSuspended);
    expect(await auditCount()).toBe(before);
    expect((await s.deps.db.query(`select 1 from nodeharbor.jobs where task = 'send-recovery' and payload ->> 'email' = $1`, [user.email])).rowCount).toBe(0);
  });
});

describe('the attacks, each refused and changing nothing', () => {
  let victim: TestUser;
  beforeAll(async () => {
    victim = await createTestUser(s, { credits: 5 });
  });

  const actions = (id: string, email: string): [string, Record<string, unknown>][] => [
    ['admin_set_dev_access', { p_user_id: id, p_granted: true }],
    ['admin_suspend_user', { p_user_id: id }],
    ['admin_reactivate_user', { p_user_id: id }],
    ['admin_send_password_reset', { p_user_id: id }],
    ['admin_delete_user', { p_user_id: id, p_email: email }],
  ];
  const reads = (id: string): [string, Record<string, unknown>][] => [
    ['admin_user', { p_user_id: id }],
    ['admin_user_transactions', { p_user_id: id }],
    ['admin_user_purchases', { p_user_id: id }],
    ['admin_user_events', { p_user_id: id }],
  ];

  const unchanged = async (run: () => Promise<void>) => {
    const before = [await account(victim.id), await auditCount()];
    await run();
    expect([await account(victim.id), await auditCount()]).toEqual(before);
  };

  it('a signed-in non-admin and an anonymous caller', async () => {
    const other = await createTestUser(s);
    await unchanged(async () => {
      for (const [fn, args] of [...actions(victim.id, victim.email), ...reads(victim.id)]) {
        const asUser = await other.client.rpc(fn, args);
        expect(asUser.error, fn).toMatchObject({ code: '42501', message: 'Only admins can manage users' });
        expect((await s.client().rpc(fn, args)).error, fn).not.toBeNull();
      }
    });
  });

  it('an admin at aal1 who has a second factor', async () => {
    const guarded = await createTestUser(s, { admin: true });
    await verifyNewFactor(guarded);
    const aal1 = await signInAal1(s, guarded);
    await unchanged(async () => {
      for (const [fn, args] of [...actions(victim.id, victim.email), ...reads(victim.id)]) {
        expect((await aal1.rpc(fn, args)).error, fn).toMatchObject({ code: '42501', message: messages.secondFactorRequired });
      }
    });
    // At aal2 the same admin may.
    expect((await guarded.client.rpc('admin_user', { p_user_id: victim.id })).error).toBeNull();
  });

  it('an admin suspending, revoking or deleting themselves', async () => {
    const before = [await account(admin.id), await auditCount()];
    expect((await admin.client.rpc('admin_suspend_user', { p_user_id: admin.id })).error?.message).toBe(messages.adminSelfSuspend);
    expect((await admin.client.rpc('admin_set_dev_access', { p_user_id: admin.id, p_granted: false })).error?.message).toBe(messages.adminSelfRevoke);
    expect((await admin.client.rpc('admin_delete_user', { p_user_id: admin.id, p_email: admin.email })).error?.message).toBe(messages.adminSelfDelete);
    expect([await account(admin.id), await auditCount()]).toEqual(before);
    expect((await signIn(admin)).error).toBeNull();
  });

  it('hostile arguments', async () => {
    await unchanged(async () => {
      const cases: [string, Record<string, unknown>, string][] = [
        ['admin_suspend_user', { p_user_id: victim.id, p_until: '2000-01-01T00:00:00Z' }, messages.adminSuspendPast],
        ['admin_set_dev_access', { p_user_id: victim.id, p_granted: null }, 'p_granted must be true or false'],
        ['admin_delete_user', { p_user_id: victim.id, p_email: null }, messages.adminDeleteEmailMismatch],
        ['admin_delete_user', { p_user_id: victim.id, p_email: "' or 1=1 --" }, messages.adminDeleteEmailMismatch],
        ['admin_suspend_user', { p_user_id: '00000000-0000-4000-8000-00000000dead' }, messages.adminUserNotFound],
        ['admin_set_dev_access', { p_user_id: null, p_granted: true }, messages.adminUserNotFound],
        ['admin_send_password_reset', { p_user_id: null }, messages.adminUserNotFound],
        ['admin_reactivate_user', { p_user_id: victim.id }, messages.adminNotSuspended],
        ['admin_user_transactions', { p_user_id: victim.id, p_limit: 201 }, 'p_limit must be 1 to 200 and p_offset at least 0'],
        ['admin_user_purchases', { p_user_id: victim.id, p_offset: -1 }, 'p_limit must be 1 to 200 and p_offset at least 0'],
        ['admin_user_events', { p_user_id: victim.id, p_limit: null }, 'p_limit must be 1 to 200 and p_offset at least 0'],
      ];
      for (const [fn, args, message] of cases) {
        expect((await admin.client.rpc(fn, args)).error?.message, fn).toBe(message);
      }
      // Not a uuid: PostgREST's own refusal.
      expect((await admin.client.rpc('admin_user', { p_user_id: 'x; drop table auth.users' })).error).not.toBeNull();
      // The private helpers are not the API's.
      for (const fn of ['close_account', 'lock_live_user']) {
        expect((await admin.client.rpc(fn, { p_user_id: victim.id })).error, fn).not.toBeNull();
      }
    });
    expect((await s.deps.db.query(`select balance from public.user_credits where user_id = $1`, [victim.id])).rows).toEqual([{ balance: '5.00' }]);
  });
});
