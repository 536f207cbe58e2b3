import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { addCredits } from '../../src/server/domain/credits';
import { grantRole, revokeRole } from '../../src/server/domain/roles';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, GALA_KEY, TOWN_STAR, type TestUser } from '../helpers/users';
import { expectLedgerBalanced } from '../helpers/ledger';

// The admin audit log (issue 19): every admin action appended, with actor, target, before and
// after, address and user agent; nobody, an admin or the table's owner included, changes a row.

let s: TestServer;
let admin: TestUser;
let owner: TestUser;

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
  total_count: number;
};

beforeAll(async () => {
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
  admin = await createTestUser(s, { admin: true });
  owner = await createTestUser(s, { credits: 50 });
});
// Money moves here: every balance stays its ledger's sum.
afterEach(() => expectLedgerBalanced(s.deps.db));
afterAll(() => s.stop());

const log = async (args: Record<string, unknown> = {}) => {
  const { data, error } = await admin.client.rpc('admin_audit_log', args);
  if (error) throw error;
  return data as Entry[];
};

it("records an admin's credit with the balance before and after, the address and the user agent", async () => {
  const { error } = await admin.client.rpc('admin_add_credit', { p_user_id: owner.id, p_amount: 12.5, p_note: 'Goodwill', p_idempotency_key: 'audit-1' });
  expect(error).toBeNull();
  // The same key again credits nothing, and records nothing.
  await admin.client.rpc('admin_add_credit', { p_user_id: owner.id, p_amount: 12.5, p_note: 'Goodwill', p_idempotency_key: 'audit-1' });
  const [entry, ...rest] = await log({ p_action: 'credit.add', p_actor: admin.email, p_target: owner.email });
  expect(rest).toEqual([]);
  expect(entry).toMatchObject({
    actor: admin.email,
    actor_id: admin.id,
    target_type: 'user',
    target_id: owner.id,
    target_label: owner.email,
    before: { balance: '50.00' },
    after: { balance: '62.50', amount: '12.50', note: 'Goodwill' },
    address: expect.stringMatching(/127\.0\.0\.1|::1/),
    user_agent: expect.any(String),
  });
});

it("records an admin's retry of someone else's installation, not the owner's own, nor one refused", async () => {
  const create = async (name: string) =>
    (
      (await owner.client.rpc('create_service_securely', { p_name: name, p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR })).data as {
        id: string;
      }
    ).id;
  // Charged, then refunded when it failed: only its owner may buy it again (migration 0050).
  const charged = await create('refunded');
  await s.deps.db.query(`select private.fail_service_installation($1, 'No such image: x')`, [charged]);
  expect((await admin.client.rpc('retry_service_installation', { p_service_id: charged })).error).toMatchObject({ code: '42501' });
  expect(await log({ p_action: 'service.retry_install', p_target: charged })).toEqual([]);
  // A purchased service reused (nothing charged), whose installation fails: anyone it concerns may retry it.
  const first = await create('audited-0');
  await s.deps.db.query('select private.complete_service_installation($1)', [first]);
  await owner.client.rpc('manage_service_operation', { p_service_id: first, p_operation: 'delete' });
  await s.deps.db.query('select private.complete_service_deletion($1)', [first]);
  const id = await create('audited');
  expect(id).toBe(first);
  await s.deps.db.query(`select private.fail_service_installation($1, 'No such image: x')`, [id]);
  expect((await owner.client.rpc('retry_service_installation', { p_service_id: id })).error).toBeNull();
  expect(await log({ p_action: 'service.retry_install', p_target: id })).toEqual([]);
  await s.deps.db.query(`select private.fail_service_installation($1, 'No such image: x')`, [id]);
  expect((await admin.client.rpc('retry_service_installation', { p_service_id: id })).error).toBeNull();
  expect(await log({ p_action: 'service.retry_install', p_target: id })).toMatchObject([
    { actor: admin.email, target_label: 'audited', before: { state: 'failed', error: 'No such image: x' }, after: { state: 'installing' } },
  ]);
});

it("records the CLI's grants, revokes and credits under the operator's name, each change once", async () => {
  await grantRole(s.deps.db, owner.id, 'dev-access', 'cli:operator');
  await grantRole(s.deps.db, owner.id, 'dev-access', 'cli:operator');
  expect(await revokeRole(s.deps.db, owner.id, 'dev-access', 'cli:operator')).toBe(true);
  expect(await revokeRole(s.deps.db, owner.id, 'dev-access', 'cli:operator')).toBe(false);
  await addCredits(s.deps.db, owner.id, 1, 'From the CLI', 'cli:operator');
  const entries = await log({ p_actor: 'cli:operator' });
  expect(entries.map((e) => [e.action, e.before, e.after, e.actor_id])).toEqual([
    ['credit.add', { balance: '52.50' }, { balance: '53.50', amount: '1.00', note: 'From the CLI' }, null],
    ['role.dev_access.revoke', { granted: true }, { granted: false }, null],
    ['role.dev_access.grant', { granted: false }, { granted: true }, null],
  ]);
});

it('filters by time and pages, newest first', async () => {
  const all = await log();
  expect(all.length).toBeGreaterThanOrEqual(5);
  const page = await log({ p_limit: 2, p_offset: 1 });
  expect(page.map((e) => e.action)).toEqual(all.slice(1, 3).map((e) => e.action));
  expect(page[0]!.total_count).toBe(all.length);
  expect(await log({ p_from: new Date(Date.now() + 60_000).toISOString() })).toEqual([]);
});

it('is append-only: no update or delete, for an admin through the API or for the owner in SQL', async () => {
  const before = (await s.deps.db.query('select count(*)::int as n from private.admin_audit_log')).rows[0];
  // Not exposed to the API at all.
  for (const client of [admin.client, owner.client]) {
    const upd = await client
      .schema('private' as 'public')
      .from('admin_audit_log')
      .update({ actor: 'x' })
      .gt('id', 0);
    expect(upd.error).not.toBeNull();
  }
  await expect(s.deps.db.query(`update private.admin_audit_log set actor = 'someone else'`)).rejects.toMatchObject({
    code: '42501',
    message: 'The audit log is append-only',
  });
  await expect(s.deps.db.query('delete from private.admin_audit_log')).rejects.toMatchObject({ code: '42501' });
  await expect(s.deps.db.query('truncate private.admin_audit_log')).rejects.toMatchObject({ code: '42501' });
  // Writing an entry directly is for the server's own functions only.
  const forged = await admin.client.rpc('record_admin_action' as 'admin_audit_log', {});
  expect(forged.error).not.toBeNull();
  expect((await s.deps.db.query('select count(*)::int as n from private.admin_audit_log')).rows[0]).toEqual(before);
});

it('is read by admins only, within its limits', async () => {
  expect((await owner.client.rpc('admin_audit_log')).error).toMatchObject({ code: '42501', message: 'Only admins can read the audit log' });
  expect((await s.client().rpc('admin_audit_log')).error).not.toBeNull();
  expect((await admin.client.rpc('admin_audit_log', { p_limit: 201 })).error?.message).toBe('p_limit must be 1 to 200 and p_offset at least 0');
  expect((await admin.client.rpc('admin_audit_log', { p_actor: 'x'.repeat(321) })).error?.message).toBe('A filter is at most 320 characters');
});
