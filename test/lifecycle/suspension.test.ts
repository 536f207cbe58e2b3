import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { enqueue } from '../../src/server/jobs/queue';
import { purchase, visit } from '../payments/helpers';
import { expectLedgerBalanced } from '../helpers/ledger';
import { createService, createTestUser, TOWN_STAR, type TestUser } from '../helpers/users';
import { jobsOf, queueIsIdle, startLifecycleServer, startSmtp, waitFor } from './helpers';

// Suspension, then termination (issue 20, decision 020). Time passes by moving renews_at and
// terminates_at in the database, as the renewal tests do: no wall-clock waits.

let s: Awaited<ReturnType<typeof startLifecycleServer>>;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let admin: TestUser;

beforeAll(async () => {
  smtp = await startSmtp();
  s = await startLifecycleServer({ SMTP_URL: smtp.url });
  admin = await createTestUser(s, { admin: true });
});
afterEach(() => expectLedgerBalanced(s.deps.db));
afterAll(async () => {
  await s.stop();
  await smtp.stop();
});

type Row = { state: string; renews_at: Date; terminates_at: Date | null };
async function row(id: string): Promise<Row> {
  const { rows } = await s.deps.db.query<Row>('select state::text as state, renews_at, terminates_at from private.services where id = $1', [id]);
  return rows[0]!;
}
async function node(id: string) {
  const { rows } = await s.deps.db.query<{ state: string; installs: number }>('select state, installs from nodeharbor.simulated_nodes where service_id = $1', [
    id,
  ]);
  return rows[0];
}
async function balance(userId: string): Promise<string> {
  return (await s.deps.db.query<{ balance: string }>('select balance from public.user_credits where user_id = $1', [userId])).rows[0]!.balance;
}
async function renewalCharges(id: string) {
  const { rows } = await s.deps.db.query(`select 1 from public.credit_transactions where service_id = $1 and description like 'Service renewal%'`, [id]);
  return rows.length;
}
const drain = () => waitFor('the queue to drain', () => queueIsIdle(s.deps.db));
/** Two sweeps made visible at once, as two workers' schedules could make them. */
async function sweepTwice() {
  await s.deps.db.transaction(async (tx) => {
    await enqueue(tx, 'renewal-sweep', {});
    await enqueue(tx, 'renewal-sweep', {});
  });
  await drain();
}
const mails = (subject: string) => smtp.mails.filter((m) => m.subject === subject);

/** A running Town Star service ($10 a month) of a new owner left with `left` dollars, suspended at its first renewal. */
async function suspendedService(name: string, left = 0): Promise<{ owner: TestUser; id: string }> {
  const owner = await createTestUser(s, { credits: 10 + left });
  const id = await createService(owner, name);
  await waitFor('the install', async () => (await row(id)).state === 'active');
  await s.deps.db.query(`update private.services set renews_at = now() - interval '1 minute' where id = $1`, [id]);
  await sweepTwice();
  expect((await row(id)).state).toBe('suspended');
  await waitFor('the node to stop', async () => (await node(id))?.state === 'stopped');
  return { owner, id };
}

/** A test payment, approved on the provider's page and returned from, as a browser does. */
async function buyCredits(owner: TestUser, amount: number) {
  const started = await purchase(owner.client, { amount, credits_amount: amount, user_id: owner.id });
  const approved = await visit((started.body as { approval_url: string }).approval_url, { decision: 'approve' });
  await visit(approved.location!);
}

it('a purchase that covers the price renews the suspended service once and starts the same node; one that does not leaves it suspended', async () => {
  const { owner, id } = await suspendedService('pay-later');
  // The ledger key of the renewal it missed, from the database (microseconds, which a Date drops).
  const { rows: missed } = await s.deps.db.query<{ key: string }>(
    `select 'service-renew:' || id || ':' || to_char(renews_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') as key from private.services where id = $1`,
    [id],
  );
  await waitFor('the suspension mail', async () => mails('Your pay-later service is suspended').length === 1);

  await buyCredits(owner, 5);
  await drain();
  expect(await row(id)).toMatchObject({ state: 'suspended' });
  expect(await balance(owner.id)).toBe('5.00');
  expect(await renewalCharges(id)).toBe(0);

  await buyCredits(owner, 5);
  await drain();
  const after = await row(id);
  expect(after).toMatchObject({ state: 'active', terminates_at: null });
  // A new month from now: the days suspended are not sold.
  expect(after.renews_at.getTime()).toBeGreaterThan(Date.now() + 27 * 86_400_000);
  expect(await balance(owner.id)).toBe('0.00');
  expect(await renewalCharges(id)).toBe(1);
  const { rows: charge } = await s.deps.db.query<{ idempotency_key: string }>(
    `select idempotency_key from public.credit_transactions where service_id = $1 and description like 'Service renewal%'`,
    [id],
  );
  // The renewal it missed, charged on its own key: the same path, once.
  expect(charge[0]!.idempotency_key).toBe(missed[0]!.key);
  await waitFor('the node to run', async () => (await node(id))?.state === 'running');
  // The same node, started: installed once, and no install job since the first.
  expect((await node(id))!.installs).toBe(1);
  expect((await jobsOf(s.deps.db, 'install-service')).filter((j) => j.payload.serviceId === id)).toHaveLength(1);
  await waitFor('the renewal mail', async () => mails('Your service pay-later has been renewed').length === 1);

  // The resumption job again (at-least-once), and another credit: nothing twice.
  for (const job of (await jobsOf(s.deps.db, 'resume-services')).filter((j) => j.payload.userId === owner.id)) {
    await enqueue(s.deps.db, 'resume-services', job.payload);
  }
  await buyCredits(owner, 1);
  await drain();
  expect(await renewalCharges(id)).toBe(1);
  expect(await balance(owner.id)).toBe('1.00');
  expect(mails('Your service pay-later has been renewed')).toHaveLength(1);
  expect(mails('Your pay-later service is suspended')).toHaveLength(1);
});

it("an admin's credit renews it too", async () => {
  const { owner, id } = await suspendedService('credited', 4);
  const { error } = await admin.client.rpc('admin_add_credit', { p_user_id: owner.id, p_amount: 6, p_note: 'Goodwill' });
  expect(error).toBeNull();
  await drain();
  expect((await row(id)).state).toBe('active');
  await waitFor('the node to run', async () => (await node(id))?.state === 'running');
  expect(await balance(owner.id)).toBe('0.00');
});

it('reminds once three days before, then terminates after SUSPENSION_DAYS: node removed, out of the list, mailed once', async () => {
  const { owner, id } = await suspendedService('lapsing', 3);
  const days = ((await row(id)).terminates_at!.getTime() - Date.now()) / 86_400_000;
  expect(days).toBeGreaterThan(13.9);
  expect(days).toBeLessThan(14.1);
  const reminder = `Your lapsing service will be terminated on`;

  await s.deps.db.query(`update private.services set terminates_at = now() + interval '4 days' where id = $1`, [id]);
  await sweepTwice();
  expect(smtp.mails.filter((m) => m.subject.startsWith(reminder))).toHaveLength(0);
  await s.deps.db.query(`update private.services set terminates_at = now() + interval '2 days' where id = $1`, [id]);
  await sweepTwice();
  await sweepTwice();
  const reminded = await waitFor('the reminder', async () => smtp.mails.find((m) => m.subject.startsWith(reminder)));
  expect(reminded.raw).toContain('$7.00');
  expect(smtp.mails.filter((m) => m.subject.startsWith(reminder))).toHaveLength(1);
  expect((await row(id)).state).toBe('suspended');

  await s.deps.db.query(`update private.services set terminates_at = now() - interval '1 minute' where id = $1`, [id]);
  await sweepTwice();
  await sweepTwice();
  expect((await row(id)).state).toBe('deleted');
  expect(await node(id)).toBeUndefined();
  const listed = await owner.client.from('services').select('id').eq('is_deleted', false);
  expect(listed.data).toEqual([]);
  // Not a purchased service to reuse either: its paid period is over.
  const unused = await owner.client.rpc('get_unused_purchased_services', { p_user_id: owner.id });
  expect(unused.data).toEqual([]);
  expect(await balance(owner.id)).toBe('3.00');
  await waitFor('the termination mail', async () => mails('Your lapsing service has been terminated').length === 1);
  const { data: events } = await owner.client.from('service_events').select('event, detail').eq('service_id', id).order('id');
  expect((events as { event: string; detail: unknown }[]).slice(-2)).toEqual([
    { event: 'delete_requested', detail: { reason: 'suspension_ended' } },
    { event: 'deleted', detail: null },
  ]);
  // A late job for the same suspension does nothing.
  for (const job of await jobsOf(s.deps.db, 'renew-service')) await enqueue(s.deps.db, 'renew-service', job.payload);
  await drain();
  expect(mails('Your lapsing service has been terminated')).toHaveLength(1);
  expect(mails('Your lapsing service is suspended')).toHaveLength(1);
});

it('a suspended service whose plan no longer renews expires with its node kept, and is never terminated', async () => {
  const { id } = await suspendedService('orphaned-plan');
  const { rows } = await s.deps.db.query<{ id: string }>(
    `insert into public.products (name, price, renew_interval, base_product_code) values ('One-off', 10, null, 'TOWNSTAR') returning id`,
  );
  await s.deps.db.query(`update private.services set product_id = $2, terminates_at = now() - interval '1 minute' where id = $1`, [id, rows[0]!.id]);
  await sweepTwice();
  expect((await row(id)).state).toBe('expired');
  expect((await row(id)).terminates_at).toBeNull();
  expect((await node(id))?.state).toBe('stopped');
  expect(mails('Your orphaned-plan service has been terminated')).toHaveLength(0);
});

it('a user cannot un-suspend a service or move its termination through REST or RPC', async () => {
  const { owner, id } = await suspendedService('stuck');
  const before = await row(id);
  const later = new Date(Date.now() + 365 * 86_400_000).toISOString();

  const patched = await owner.client.from('services').update({ state: 'active', terminates_at: later, expired: false }).eq('id', id);
  expect(patched.error).not.toBeNull();
  const updated = await owner.client.rpc('manage_service_operation', { p_service_id: id, p_operation: 'update', p_updates: { terminates_at: later } });
  expect(updated.error?.message).toBe('Only name, description and api_key can be updated');
  const reactivated = await owner.client.rpc('manage_service_operation', { p_service_id: id, p_operation: 'reactivate', p_updates: { name: 'stuck' } });
  expect(reactivated.error?.message).toBe('This service cannot be reactivated');
  expect((await owner.client.rpc('renew_service', { p_service_id: id })).status).toBe(403);
  expect((await owner.client.rpc('renew_service', { p_service_id: id, p_suspension_days: 365 })).error).not.toBeNull();
  const extended = await owner.client.rpc('extend_service_expiration', { p_service_id: id, p_product_id: TOWN_STAR, p_months: 1 });
  expect(extended.error?.message).toBe('Insufficient Credits');
  const { rows } = await s.deps.db.query<{ can: boolean }>(
    `select has_function_privilege('authenticated', 'private.renew_service(uuid, integer)', 'execute') as can`,
  );
  expect(rows[0]!.can).toBe(false);

  expect(await row(id)).toEqual(before);
  const { data } = await owner.client.from('services').select('state, expired, terminates_at').eq('id', id).single();
  expect(data).toEqual({ state: 'suspended', expired: true, terminates_at: expect.any(String) as unknown });
  expect(new Date((data as { terminates_at: string }).terminates_at).getTime()).toBe(before.terminates_at!.getTime());
});
