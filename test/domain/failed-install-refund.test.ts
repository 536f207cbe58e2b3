import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createJobDeps } from '../../src/server/jobs/app-worker';
import type { JobDeps } from '../../src/server/jobs/task';
import { installService } from '../../src/server/jobs/tasks/install-service';
import { failInstallation } from '../../src/server/provisioning/install-node';
import { failedInstallMessages, failedInstallTexts } from '../../src/shared/failed-install';
import { messages } from '../../src/shared/validation';
import { startTestServer, type TestServer } from '../helpers/server';
import { createService, createTestUser, type TestUser } from '../helpers/users';
import { expectLedgerBalanced } from '../helpers/ledger';

// Issue 36, item 5 (migration 0050, decision 041): a failed installation is free, visibly. Its
// charge comes back at once as a ledger credit, once per charge however often the failure is
// reported; a Retry charges again only when its owner confirms the price, and nobody else can make
// it; a balance a refund took below zero tells its owner why.

let s: TestServer;
let deps: JobDeps;
beforeAll(async () => {
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
  deps = await createJobDeps(s.deps);
});
// Money moves here: every balance stays its ledger's sum.
afterEach(() => expectLedgerBalanced(s.deps.db));
afterAll(() => s.stop());

const sql = <T>(text: string, params: unknown[] = []) => s.deps.db.query<T>(text, params).then((r) => r.rows);
const fail = (id: string, reason = 'No such image: x') => failInstallation(deps, id, reason);
const balanceOf = async (u: TestUser) =>
  Number((await sql<{ balance: string }>('select balance from public.user_credits where user_id = $1', [u.id]))[0]!.balance);
const ledger = async (u: TestUser) =>
  (
    await sql<{ type: string; description: string; amount: string }>(
      'select type, description, amount::text from public.credit_transactions where user_id = $1 order by created_at, id',
      [u.id],
    )
  ).map((t) => [t.type, t.description, Number(t.amount)]);
const stateOf = async (id: string) => (await sql<{ state: string }>('select state::text from private.services where id = $1', [id]))[0]!.state;
const installJobs = async (id: string) =>
  (await sql<{ n: number }>(`select count(*)::int as n from nodeharbor.jobs where task = 'install-service' and payload ->> 'serviceId' = $1`, [id]))[0]!.n;
const retry = (u: TestUser, id: string, charge?: number) =>
  u.client.rpc('retry_service_installation', charge === undefined ? { p_service_id: id } : { p_service_id: id, p_charge: charge });
/** What the owner's card reads. */
const card = async (u: TestUser, id: string) =>
  (await u.client.from('services').select('state, install_refund, renews_at').eq('id', id).single()).data as {
    state: string;
    install_refund: number | string | null;
    renews_at: string;
  };

/** Everything a refused retry must leave as it was. */
async function snapshot(u: TestUser, id: string) {
  return { state: await stateOf(id), balance: await balanceOf(u), ledger: await ledger(u), jobs: await installJobs(id) };
}

describe('a failed installation', () => {
  it('gives its charge back at once, as a credit in the ledger, and says so on the card, in the history and in the mail', async () => {
    const u = await createTestUser(s, { credits: 12 });
    const id = await createService(u, 'refund-me');
    expect(await balanceOf(u)).toBe(2);
    await fail(id);
    expect(await balanceOf(u)).toBe(12);
    expect(await ledger(u)).toEqual([
      ['admin_credit', 'Test credit', 12],
      ['service_charge', 'Service creation for refund-me (Town Star)', -10],
      ['refund', failedInstallTexts.refundDescription('refund-me'), 10],
    ]);
    const shown = await card(u, id);
    expect({ ...shown, install_refund: Number(shown.install_refund) }).toMatchObject({ state: 'failed', install_refund: 10 });
    // No period is left: nothing to renew, extend or reuse.
    expect(new Date(shown.renews_at).getTime()).toBeLessThanOrEqual(Date.now());
    const events = await sql<{ detail: unknown }>(`select detail from public.service_events where service_id = $1 and event = 'install_failed'`, [id]);
    expect(events).toEqual([{ detail: expect.objectContaining({ refunded: 10 }) }]);
    const mails = await sql<{ text_body: string }>('select text_body from nodeharbor.outbox where to_address = $1 and subject = $2', [
      u.email,
      'The installation of refund-me failed',
    ]);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text_body).toContain('The $10.00 it cost has come back to your NodeHarbor credit');
    expect(mails[0]!.text_body).toContain('your balance is now $12.00');
  });

  it('gives a charge back once, however often the failure is reported: concurrent and repeated failure jobs, and a replayed charge', async () => {
    const u = await createTestUser(s, { credits: 10 });
    const id = await createService(u, 'fails-often');
    const charge = (await sql<{ charge: string }>('select install_charge_id as charge from private.services where id = $1', [id]))[0]!.charge;
    expect(charge).not.toBeNull();
    // The job that failed it, its retried run, and the queue's give-up hook, all at once and again.
    await Promise.all([fail(id), fail(id, 'again'), installService.onFailed!({ serviceId: id }, deps, 'engine gone')]);
    await fail(id, 'once more');
    await installService.onFailed!({ serviceId: id }, deps, 'engine gone');
    // Even put back to installing with the same charge (as a bug might), the key keeps it once.
    await sql(`update private.services set state = 'installing', install_charge_id = $2 where id = $1`, [id, charge]);
    await fail(id, 'replayed');
    const refunds = await sql('select 1 from public.credit_transactions where user_id = $1 and type = $2', [u.id, 'refund']);
    expect(refunds).toHaveLength(1);
    expect(await balanceOf(u)).toBe(10);
    const mails = await sql('select 1 from nodeharbor.outbox where to_address = $1 and subject like $2', [u.email, 'The installation of%']);
    expect(mails).toHaveLength(2);
  });

  it('of a reused purchased service gives nothing back: nothing was charged, and the period it keeps is the one bought before', async () => {
    const u = await createTestUser(s, { credits: 10 });
    const first = await createService(u, 'reused-0');
    await sql('select private.complete_service_installation($1)', [first]);
    await u.client.rpc('manage_service_operation', { p_service_id: first, p_operation: 'delete' });
    await sql('select private.complete_service_deletion($1)', [first]);
    expect(await createService(u, 'reused')).toBe(first);
    await fail(first);
    expect(await balanceOf(u)).toBe(0);
    expect((await card(u, first)).install_refund).toBeNull();
    // Its retry costs nothing and asks for no confirmation; an admin may make it too.
    const admin = await createTestUser(s, { admin: true });
    const { data, error } = await retry(admin, first);
    expect(error).toBeNull();
    expect(data).toMatchObject({ state: 'installing', charged: 0 });
    expect(await balanceOf(u)).toBe(0);
  });
});

describe('a Retry of a refunded installation', () => {
  it('charges only the price its owner confirmed, then installs again with a new period; a second failure gives that charge back too', async () => {
    const u = await createTestUser(s, { credits: 10 });
    const id = await createService(u, 'retry-paid');
    await fail(id);
    const before = await snapshot(u, id);
    // Not confirmed (an older client), or confirmed at another price: refused, nothing changes.
    for (const charge of [undefined, 5, 0]) {
      const refused = await retry(u, id, charge);
      expect(refused, String(charge)).toMatchObject({ status: 409, error: { message: failedInstallMessages.retryUnconfirmed(10) } });
      expect(await snapshot(u, id)).toEqual(before);
    }
    const { data, error } = await retry(u, id, 10);
    expect(error).toBeNull();
    expect(data).toMatchObject({ state: 'installing', charged: 10, install_refund: null });
    expect(await balanceOf(u)).toBe(0);
    expect((await ledger(u)).at(-1)).toEqual(['service_charge', failedInstallTexts.retryChargeDescription('retry-paid', 'Town Star'), -10]);
    expect(await installJobs(id)).toBe(2);
    const events = await sql<{ detail: unknown }>(`select detail from public.service_events where service_id = $1 and event = 'retry_requested'`, [id]);
    expect(events).toEqual([{ detail: { by: 'owner', charged: 10 } }]);
    // It fails again: the retry's charge comes back, once.
    await fail(id, 'still no image');
    await fail(id, 'still no image');
    expect(await balanceOf(u)).toBe(10);
    expect((await ledger(u)).filter((t) => t[0] === 'refund')).toHaveLength(2);
  });

  it('without enough credit is refused with what is missing, and nothing changes', async () => {
    const u = await createTestUser(s, { credits: 10 });
    const id = await createService(u, 'retry-poor');
    await fail(id);
    // The $10 that came back was spent on something else.
    await sql(`select private.post_transaction($1, -6, 'service_charge', 'Spent', null, $2)`, [u.id, `spent-${u.id}`]);
    const before = await snapshot(u, id);
    const refused = await retry(u, id, 10);
    expect(refused).toMatchObject({ status: 400, error: { message: messages.insufficientCredits, details: messages.insufficientCreditsDetail(10, 4) } });
    expect(await snapshot(u, id)).toEqual(before);
    // A balance below zero is said as the dashboard writes it.
    await sql(`select private.post_transaction($1, -12, 'refund', 'Payment reversed by PayPal', null, $2, true)`, [u.id, `reversed-${u.id}`]);
    const owing = await retry(u, id, 10);
    expect(owing.error).toMatchObject({ details: 'You need $10.00 but only have -$8.00' });
    expect((await snapshot(u, id)).state).toBe('failed');
  });

  it('cannot be made by another user, an admin or a visitor, and changes nothing for them', async () => {
    const u = await createTestUser(s, { credits: 10 });
    const stranger = await createTestUser(s, { credits: 50 });
    const admin = await createTestUser(s, { admin: true, credits: 50 });
    const id = await createService(u, 'retry-mine');
    await fail(id);
    const before = await snapshot(u, id);
    expect(await retry(stranger, id, 10)).toMatchObject({ status: 404, error: { message: 'Service not found' } });
    // An admin cannot spend the customer's credit on it, nor their own.
    expect(await retry(admin, id, 10)).toMatchObject({ status: 403, error: { message: failedInstallMessages.adminRetryRefunded } });
    expect((await s.client().rpc('retry_service_installation', { p_service_id: id, p_charge: 10 })).status).toBe(401);
    expect(await snapshot(u, id)).toEqual(before);
    expect(await balanceOf(stranger)).toBe(50);
    expect(await balanceOf(admin)).toBe(50);
    // Nor read what came back to its owner.
    expect((await stranger.client.from('services').select('install_refund').eq('id', id)).data).toEqual([]);
  });

  it('charges once for two requests at once', async () => {
    const u = await createTestUser(s, { credits: 30 });
    const id = await createService(u, 'retry-twice');
    await fail(id);
    const answers = await Promise.all([retry(u, id, 10), retry(u, id, 10)]);
    expect(answers.filter((a) => a.error === null)).toHaveLength(1);
    expect(answers.find((a) => a.error)?.error?.message).toBe('Only a service whose installation failed can be retried');
    expect(await balanceOf(u)).toBe(20);
  });

  it('deleted instead, leaves nothing to reuse: its price is already back', async () => {
    const u = await createTestUser(s, { credits: 10 });
    const id = await createService(u, 'retry-never');
    await fail(id);
    expect((await u.client.rpc('manage_service_operation', { p_service_id: id, p_operation: 'delete' })).error).toBeNull();
    await sql('select private.complete_service_deletion($1)', [id]);
    expect((await u.client.rpc('get_unused_purchased_services', { p_user_id: u.id })).data).toEqual([]);
    // A new order of the same plan is charged: no slot was left behind to take for free.
    await createService(u, 'retry-new');
    expect(await balanceOf(u)).toBe(0);
  });
});

describe('a balance below zero', () => {
  /** A purchase of `paid`, `spent` of it spent, and then `refunded` of it refunded by an admin with `reason`. */
  async function refundedBelowZero(u: TestUser, paid: number, spent: number, refunded: number, reason: string | null) {
    const purchaseId = (
      await sql<{ id: string }>(
        `insert into public.credit_purchases (user_id, amount, status, provider, provider_order_id)
       values ($1, $2, 'completed', 'test', $3) returning id`,
        [u.id, paid, `ORDER-${u.id}`],
      )
    )[0]!.id;
    await sql(`select private.post_transaction($1, $2, 'purchase', 'Credit purchase (test payment)', null, $3)`, [u.id, paid, `ORDER-${u.id}`]);
    await sql(`select private.post_transaction($1, $2, 'service_charge', 'Spent', null, $3)`, [u.id, -spent, `spent-${u.id}`]);
    const refundId = (
      await sql<{ id: string }>(
        `insert into public.credit_refunds (purchase_id, user_id, amount, kind, reason) values ($1, $2, $3, 'refund', $4) returning id`,
        [purchaseId, u.id, refunded, reason],
      )
    )[0]!.id;
    await sql(`select private.book_refund($1, $2, $3, 'USD', $4, 'refund', '{"name": "NodeHarbor"}')`, [
      purchaseId,
      refundId,
      `R-${refundId}`,
      refunded.toFixed(2),
    ]);
  }

  it('tells its owner, and only its owner, why: the refund, its credit note and the reason the admin gave them', async () => {
    const u = await createTestUser(s);
    const stranger = await createTestUser(s);
    expect((await u.client.rpc('get_negative_balance')).data).toEqual([]);
    await refundedBelowZero(u, 10, 8, 10, 'Duplicate payment');
    const { data, error } = await u.client.rpc('get_negative_balance');
    expect(error).toBeNull();
    const [row] = data as { balance: number; description: string; amount: number; note: string | null; credit_note: string | null }[];
    expect({ ...row, balance: Number(row!.balance), amount: Number(row!.amount) }).toMatchObject({
      balance: -8,
      description: 'Refund',
      amount: 10,
      note: 'Duplicate payment',
      credit_note: expect.stringMatching(/^NH-CN-\d{4}-\d{6}$/),
    });
    expect((await stranger.client.rpc('get_negative_balance')).data).toEqual([]);
    expect((await s.client().rpc('get_negative_balance')).status).toBe(401);
  });

  it("keeps an admin's reason written before the dialog said the customer reads it", async () => {
    const u = await createTestUser(s);
    await refundedBelowZero(u, 10, 8, 10, 'Internal: suspected fraud');
    await sql('update public.credit_refunds set reason_shown = false where user_id = $1', [u.id]);
    const [row] = (await u.client.rpc('get_negative_balance')).data as { note: string | null; amount: number }[];
    expect(row).toMatchObject({ note: null });
    expect(Number(row!.amount)).toBe(10);
  });
});
