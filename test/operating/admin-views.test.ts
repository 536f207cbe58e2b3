import type { SupabaseClient } from '@supabase/supabase-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/shared/validation';
import { invokeFunction } from '../helpers/functions';
import { runDueJobs } from '../helpers/jobs';
import { signInAal1, verifyNewFactor } from '../helpers/mfa';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, type TestUser } from '../helpers/users';
import { expectLedgerBalanced } from '../helpers/ledger';

// Issue 19: what an operator did with the CLI, from the admin area: creating a user (audited with
// the admin, address and user agent), and reading the contact messages and the mail outbox.

let s: TestServer;
let admin: TestUser;
let customer: TestUser;
/** An admin with a verified factor: `aal2` has passed it, `aal1` only the password. */
let guarded: { aal1: SupabaseClient; aal2: SupabaseClient };

beforeAll(async () => {
  // Rate limits on, as in production: the test makes few sign-ins.
  s = await startTestServer();
  admin = await createTestUser(s, { admin: true });
  customer = await createTestUser(s);
  const second = await createTestUser(s, { admin: true });
  await verifyNewFactor(second);
  guarded = { aal2: second.client, aal1: await signInAal1(s, second) };
});
// Money moves here: every balance stays its ledger's sum.
afterEach(() => expectLedgerBalanced(s.deps.db));
afterAll(() => s.stop());

const USER_AGENT = 'NodeHarbor admin test/1.0';
const create = (client: SupabaseClient, body: unknown) =>
  client.functions
    .invoke('admin-create-user', { body: body as Record<string, unknown>, headers: { 'User-Agent': USER_AGENT } })
    .then(async ({ data, error }) => {
      if (!error) return { status: 200, body: data as Record<string, unknown> };
      const res = (error as { context: Response }).context;
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    });

const count = async (sql: string, params: unknown[] = []) => (await s.deps.db.query<{ n: number }>(`select count(*)::int as n from ${sql}`, params)).rows[0]!.n;
const users = () => count('auth.users');
const entries = () => count('private.admin_audit_log');

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
const audit = async (args: Record<string, unknown>) => {
  const { data, error } = await admin.client.rpc('admin_audit_log', args);
  if (error) throw error;
  return data as Entry[];
};

const valid = (email: string) => ({ email, full_name: 'Grace Hopper', password: 'cobol-compiler-1959' });

describe('admin-create-user', () => {
  it('creates a confirmed user who can sign in, an admin with initial credit, each step audited with the admin, address and user agent', async () => {
    const r = await create(admin.client, { ...valid('  Grace@Example.com '), admin: true, credits: 25.5 });
    expect(r).toEqual({ status: 200, body: { id: expect.any(String), email: 'grace@example.com' } });
    const id = r.body.id as string;

    const grace = s.client();
    const signIn = await grace.auth.signInWithPassword({ email: 'grace@example.com', password: 'cobol-compiler-1959' });
    expect(signIn.error).toBeNull();
    expect(signIn.data.user?.user_metadata.full_name).toBe('Grace Hopper');
    expect((await grace.rpc('is_user_admin', { user_uuid: id })).data).toBe(true);
    expect((await grace.from('user_credits').select('balance').single()).data).toEqual({ balance: 25.5 });
    expect((await grace.from('credit_transactions').select('amount, description')).data).toEqual([{ amount: 25.5, description: 'Initial credit' }]);

    const logged = await audit({ p_target: id });
    const who = {
      actor: admin.email,
      actor_id: admin.id,
      target_type: 'user',
      target_id: id,
      target_label: 'grace@example.com',
      address: expect.stringMatching(/127\.0\.0\.1|::1/),
      user_agent: USER_AGENT,
    };
    expect(logged).toMatchObject([
      { ...who, action: 'credit.add', before: { balance: '0.00' }, after: { balance: '25.50', amount: '25.50', note: 'Initial credit' } },
      { ...who, action: 'role.admin.grant', before: { granted: false }, after: { granted: true } },
      { ...who, action: 'user.create', before: null, after: { admin: true, full_name: 'Grace Hopper' } },
    ]);
  });

  it('creates a plain user without credit: one audit entry', async () => {
    const r = await create(admin.client, { ...valid('plain@example.com'), credits: null });
    expect(r.status).toBe(200);
    expect(await audit({ p_target: r.body.id })).toMatchObject([{ action: 'user.create', after: { admin: false, full_name: 'Grace Hopper' } }]);
    expect((await s.deps.db.query('select 1 from public.admin_users where user_id = $1', [r.body.id])).rows).toEqual([]);
  });

  it('refuses an address already taken, whatever its case, with a clear message, and changes nothing', async () => {
    const [before, logged] = [await users(), await entries()];
    expect(await create(admin.client, valid(customer.email.toUpperCase()))).toEqual({ status: 409, body: { error: messages.userExists } });
    expect([await users(), await entries()]).toEqual([before, logged]);
  });

  it('holds the password to the rules of every other form, and the other fields to theirs', async () => {
    const [before, logged] = [await users(), await entries()];
    const refusals: [Record<string, unknown>, string][] = [
      [{ ...valid('a@example.com'), password: 'short' }, messages.resetPasswordShort],
      // Long enough, but on the list of common passwords: GoTrue's words, as at sign-up.
      [{ ...valid('a@example.com'), password: 'password1' }, messages.passwordCommon],
      [{ ...valid('a@example.com'), password: 'é'.repeat(40) }, 'Password cannot be longer than 72 characters'],
      [{ ...valid('not-an-address'), password: 'cobol-compiler-1959' }, messages.email],
      [{ ...valid('a@example.com'), full_name: '   ' }, messages.fullNameRequired],
      [{ ...valid('a@example.com'), full_name: 'x'.repeat(201) }, messages.fullNameLong],
      [{ ...valid('a@example.com'), credits: 0 }, messages.adminCreditAmount],
      [{ ...valid('a@example.com'), credits: 1.005 }, messages.adminCreditAmount],
      [{ ...valid('a@example.com'), credits: 1e10 }, messages.adminCreditAmount],
      [{ ...valid('a@example.com'), credits: '10' }, messages.adminCreditAmount],
    ];
    for (const [body, message] of refusals) expect(await create(admin.client, body), message).toMatchObject({ status: 400, body: { error: message } });
    expect((await create(admin.client, { ...valid('a@example.com'), admin: 'yes' })).status).toBe(400);
    expect((await create(admin.client, [valid('a@example.com')])).status).toBe(400);
    expect([await users(), await entries()]).toEqual([before, logged]);
  });

  it('is for admins only: a customer (asking to be made admin), a visitor and an admin at aal1 are refused, and nothing changes', async () => {
    const [before, logged] = [await users(), await entries()];
    expect(await create(customer.client, { ...valid('mallory@example.com'), admin: true })).toEqual({
      status: 403,
      body: { error: 'Only admins can create users' },
    });
    expect(await create(s.client(), valid('mallory@example.com'))).toEqual({ status: 401, body: { error: 'Authentication required' } });
    expect(await invokeFunction(guarded.aal1, 'admin-create-user', valid('mallory@example.com'))).toEqual({
      status: 403,
      body: { error: messages.secondFactorRequired },
    });
    expect([await users(), await entries()]).toEqual([before, logged]);
    // The same admin past the factor may.
    expect((await create(guarded.aal2, valid('stepped-up@example.com'))).status).toBe(200);
  });

  it('refuses an admin who has created too many users lately, with Retry-After', async () => {
    await s.deps.db.query(
      `insert into nodeharbor.rate_limits (key, window_start, count) values ($1, now(), 30)
     on conflict (key) do update set window_start = now(), count = 30`,
      [`admin-create-user:user:${admin.id}`],
    );
    const before = await users();
    const { error } = await admin.client.functions.invoke('admin-create-user', { body: valid('one-too-many@example.com') });
    const res = (error as { context: Response }).context;
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await res.json()) as { error: string }).error).toMatch(/^Too many new users\. Please try again in \d+ minutes\.$/);
    expect(await users()).toBe(before);
    await s.deps.db.query('delete from nodeharbor.rate_limits where key = $1', [`admin-create-user:user:${admin.id}`]);
  });
});

describe('admin_contact_messages', () => {
  it('lists what the contact form stored, newest first, in pages', async () => {
    const sent = await invokeFunction(s.client(), 'contact-form', {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      topic: 'sales',
      message: 'I would like to host ten nodes.',
      honeypot: '',
    });
    expect(sent.status).toBe(200);
    for (const [i, ago] of [
      [1, 3],
      [2, 2],
    ] as const) {
      await s.deps.db.query(
        `insert into public.contact_messages (name, email, topic, message, created_at) values ($1, $2, 'support', $3, now() - make_interval(hours => $4))`,
        [`Sender ${i}`, `sender${i}@example.com`, `Message number ${i}, long enough.`, ago],
      );
    }
    const { data, error } = await admin.client.rpc('admin_contact_messages');
    expect(error).toBeNull();
    expect(data).toMatchObject([
      { name: 'Ada Lovelace', email: 'ada@example.com', topic: 'sales', message: 'I would like to host ten nodes.', total_count: 3 },
      { name: 'Sender 2', topic: 'support' },
      { name: 'Sender 1' },
    ]);
    const page = await admin.client.rpc('admin_contact_messages', { p_limit: 1, p_offset: 1 });
    expect(page.data).toMatchObject([{ name: 'Sender 2', total_count: 3 }]);
    expect((await admin.client.rpc('admin_contact_messages', { p_offset: 3 })).data).toEqual([]);
  });

  it('is read by admins only, past their second factor, within its limits', async () => {
    expect((await customer.client.rpc('admin_contact_messages')).error).toMatchObject({ code: '42501', message: 'Only admins can read contact messages' });
    expect((await s.client().rpc('admin_contact_messages')).error).not.toBeNull();
    expect((await guarded.aal1.rpc('admin_contact_messages')).error).toMatchObject({ code: '42501', message: messages.secondFactorRequired });
    expect((await guarded.aal2.rpc('admin_contact_messages')).error).toBeNull();
    for (const args of [{ p_limit: 0 }, { p_limit: 201 }, { p_limit: null }, { p_offset: -1 }, { p_offset: null }]) {
      expect((await admin.client.rpc('admin_contact_messages', args)).error?.message, JSON.stringify(args)).toBe(
        'p_limit must be 1 to 200 and p_offset at least 0',
      );
    }
    expect((await admin.client.rpc('admin_contact_messages', { p_limit: 'all' })).error).not.toBeNull();
  });
});

describe('the mail outbox', () => {
  let recoveryId: number;

  beforeAll(async () => {
    expect((await s.client().auth.resetPasswordForEmail(customer.email)).error).toBeNull();
    await runDueJobs(s);
  });

  it('lists every mail newest first without bodies, filtered by recipient, in pages', async () => {
    const { data, error } = await admin.client.rpc('admin_mail_outbox', { p_to: customer.email.toUpperCase() });
    expect(error).toBeNull();
    const rows = data as Record<string, unknown>[];
    expect(rows).toEqual([
      {
        id: expect.any(Number),
        created_at: expect.any(String),
        to_address: customer.email,
        subject: 'Reset your NodeHarbor password',
        status: 'kept',
        error: null,
        sent_at: null,
        attempts: 0,
        attachment_names: null,
        total_count: 1,
      },
    ]);
    recoveryId = rows[0]!.id as number;
    const all = (await admin.client.rpc('admin_mail_outbox')).data as { id: number; total_count: number }[];
    expect(all[0]!.id).toBe(recoveryId);
    const page = (await admin.client.rpc('admin_mail_outbox', { p_limit: 1, p_offset: 0 })).data as { id: number; total_count: number }[];
    expect(page).toMatchObject([{ id: recoveryId, total_count: all.length }]);
    // A filter is a plain substring: no pattern characters.
    expect((await admin.client.rpc('admin_mail_outbox', { p_to: '%' })).data).toEqual([]);
    expect((await admin.client.rpc('admin_mail_outbox', { p_to: '_' })).data).toEqual([]);
  });

  it("reads one mail's text on demand, and records the reading in the audit log", async () => {
    const logged = await entries();
    const { data, error } = await admin.client.rpc('admin_read_mail', { p_id: recoveryId });
    expect(error).toBeNull();
    const [mail] = data as { to_address: string; subject: string; text_body: string }[];
    expect(mail).toMatchObject({ to_address: customer.email, subject: 'Reset your NodeHarbor password' });
    expect(mail!.text_body).toMatch(/\/auth\/v1\/verify\?token=\S+&type=recovery/);
    expect(await entries()).toBe(logged + 1);
    expect(await audit({ p_action: 'mail.read', p_limit: 1 })).toMatchObject([
      {
        actor: admin.email,
        actor_id: admin.id,
        target_type: 'mail',
        target_id: String(recoveryId),
        target_label: customer.email,
        before: null,
        after: { subject: 'Reset your NodeHarbor password' },
        address: expect.stringMatching(/127\.0\.0\.1|::1/),
      },
    ]);
  });

  it('is read by admins only, past their second factor, within its limits; a refused reading is not recorded', async () => {
    const logged = await entries();
    const notAdmin = { code: '42501', message: 'Only admins can read the mail outbox' };
    expect((await customer.client.rpc('admin_mail_outbox')).error).toMatchObject(notAdmin);
    expect((await customer.client.rpc('admin_read_mail', { p_id: recoveryId })).error).toMatchObject(notAdmin);
    expect((await s.client().rpc('admin_mail_outbox')).error).not.toBeNull();
    expect((await s.client().rpc('admin_read_mail', { p_id: recoveryId })).error).not.toBeNull();
    expect((await guarded.aal1.rpc('admin_mail_outbox')).error).toMatchObject({ code: '42501', message: messages.secondFactorRequired });
    expect((await guarded.aal1.rpc('admin_read_mail', { p_id: recoveryId })).error).toMatchObject({ code: '42501', message: messages.secondFactorRequired });
    expect((await admin.client.rpc('admin_read_mail', { p_id: 999_999_999 })).error).toMatchObject({ code: 'PT404', message: 'No such mail' });
    expect((await admin.client.rpc('admin_read_mail', { p_id: null })).error?.message).toBe('No such mail');
    expect((await admin.client.rpc('admin_read_mail', { p_id: '1; delete from nodeharbor.outbox' })).error).not.toBeNull();
    expect(await entries()).toBe(logged);
    for (const args of [{ p_limit: 0 }, { p_limit: 201 }, { p_offset: -1 }, { p_offset: null }]) {
      expect((await admin.client.rpc('admin_mail_outbox', args)).error?.message, JSON.stringify(args)).toBe('p_limit must be 1 to 200 and p_offset at least 0');
    }
    expect((await admin.client.rpc('admin_mail_outbox', { p_to: 'x'.repeat(321) })).error?.message).toBe('A filter is at most 320 characters');
    // The table itself is not in the API.
    expect(
      (
        await admin.client
          .schema('nodeharbor' as 'public')
          .from('outbox')
          .select('text_body')
      ).error,
    ).not.toBeNull();
    expect(await count('nodeharbor.outbox where id = $1', [recoveryId])).toBe(1);
  });
});
