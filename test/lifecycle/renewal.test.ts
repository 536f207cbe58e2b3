import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { addCredits } from '../../src/server/domain/credits';
import { enqueue } from '../../src/server/jobs/queue';
import { createTestUser, GALA_KEY, TOWN_STAR, TOWN_STAR_QUARTERLY, type TestUser } from '../helpers/users';
import { jobsOf, queueIsIdle, startLifecycleServer, startSmtp, waitFor } from './helpers';
import { expectLedgerBalanced } from '../helpers/ledger';

let s: Awaited<ReturnType<typeof startLifecycleServer>>;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let owner: TestUser;
let serviceId: string;

beforeAll(async () => {
  smtp = await startSmtp();
  s = await startLifecycleServer({ SMTP_URL: smtp.url });
  owner = await createTestUser(s, { credits: 25 });
  serviceId = await activeService(owner, 'renewing');
});
// Money moves here: every balance stays its ledger's sum.
afterEach(() => expectLedgerBalanced(s.deps.db));
afterAll(async () => {
  await s.stop();
  await smtp.stop();
});

async function activeService(u: TestUser, name: string): Promise<string> {
  const { data, error } = await u.client.rpc('create_service_securely', { p_name: name, p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR });
  if (error) throw error;
  const id = (data as { id: string }).id;
  await waitFor('the install', async () => (await serviceRow(id)).is_installed);
  return id;
}
async function serviceRow(id: string) {
  const { rows } = await s.deps.db.query<{ renews_at: Date; expired: boolean; is_installed: boolean; state: string; terminates_at: Date | null }>(
    'select renews_at, expired, is_installed, state::text as state, terminates_at from private.service_rows where id = $1',
    [id],
  );
  return rows[0]!;
}
async function balance(userId: string): Promise<string> {
  return (await s.deps.db.query<{ balance: string }>('select balance from public.user_credits where user_id = $1', [userId])).rows[0]!.balance;
}
async function renewalCharges(id: string) {
  return (
    await s.deps.db.query<{ amount: string }>(`select amount from public.credit_transactions where service_id = $1 and description like 'Service renewal%'`, [
      id,
    ])
  ).rows;
}
async function events(u: TestUser, id: string): Promise<string[]> {
  const { data } = await u.client.from('service_events').select('event').eq('service_id', id).order('id');
  return ((data ?? []) as { event: string }[]).map((e) => e.event);
}
async function renewedDetails(u: TestUser, id: string) {
  const { data } = await u.client.from('service_events').select('detail').eq('service_id', id).eq('event', 'renewed').order('id');
  return ((data ?? []) as { detail: { months?: number; charged?: number } }[]).map((e) => e.detail);
}
async function nodeState(id: string) {
  return (await s.deps.db.query<{ state: string }>('select state from nodeharbor.simulated_nodes where service_id = $1', [id])).rows[0]?.state;
}
async function installs(id: string) {
  return (await s.deps.db.query<{ installs: number }>('select installs from nodeharbor.simulated_nodes where service_id = $1', [id])).rows[0]?.installs;
}
/** Two sweeps made visible at once, as two workers' schedules could make them. */
async function sweepTwice() {
  await s.deps.db.transaction(async (tx) => {
    await enqueue(tx, 'renewal-sweep', {});
    await enqueue(tx, 'renewal-sweep', {});
  });
  await waitFor('the queue to drain', () => queueIsIdle(s.deps.db));
}
/** Moves the renewal date, as time passing would. */
async function setRenewsAt(id: string, sql: string) {
  await s.deps.db.query(`update private.services set renews_at = ${sql} where id = $1`, [id]);
}

it('renews a due service at the period boundary once, however often the sweep runs', async () => {
  await setRenewsAt(serviceId, `now() - interval '1 minute'`);
  const due = (await serviceRow(serviceId)).renews_at;
  await sweepTwice();
  await sweepTwice();
  expect(await renewalCharges(serviceId)).toEqual([{ amount: '-10.00' }]);
  expect(await balance(owner.id)).toBe('5.00');
  const after = await serviceRow(serviceId);
  expect(after.expired).toBe(false);
  expect(after.renews_at.getTime()).toBeGreaterThan(Date.now() + 27 * 86_400_000);
  const renewJobs = await jobsOf(s.deps.db, 'renew-service');
  expect(renewJobs).toHaveLength(1);
  expect(renewJobs[0]!.key).toBe(`renew-service:${serviceId}:${due.toISOString()}`);
  // A duplicate delivery of the same job (at-least-once) changes nothing.
  await enqueue(s.deps.db, 'renew-service', renewJobs[0]!.payload);
  await waitFor('the queue to drain', () => queueIsIdle(s.deps.db));
  expect(await renewalCharges(serviceId)).toHaveLength(1);
  expect(await renewedDetails(owner, serviceId)).toEqual([expect.objectContaining({ months: 1, charged: 10 })]);
  const mail = await waitFor('the renewal mail', async () => smtp.mails.find((m) => m.subject === 'Your service renewing has been renewed'));
  expect(mail.to).toEqual([owner.email]);
  expect(mail.raw).toContain('$10.00');
  expect(smtp.mails.filter((m) => m.subject === mail.subject)).toHaveLength(1);
});

it('suspends a due service the balance cannot cover, stops its node (kept) and tells the owner once', async () => {
  await setRenewsAt(serviceId, `now() - interval '1 minute'`);
  await sweepTwice();
  await sweepTwice();
  const row = await serviceRow(serviceId);
  expect(row).toMatchObject({ state: 'suspended', expired: true });
  // SUSPENSION_DAYS (14 by default) from now.
  expect(row.terminates_at!.getTime()).toBeGreaterThan(Date.now() + 13.9 * 86_400_000);
  expect(row.terminates_at!.getTime()).toBeLessThan(Date.now() + 14.1 * 86_400_000);
  expect(await renewalCharges(serviceId)).toHaveLength(1);
  expect(await balance(owner.id)).toBe('5.00');
  await waitFor('the node to stop', async () => (await nodeState(serviceId)) === 'stopped');
  expect((await events(owner, serviceId)).slice(-2)).toEqual(['suspended', 'stopped']);
  const mail = await waitFor('the suspension mail', async () => smtp.mails.find((m) => m.subject === 'Your renewing service is suspended'));
  expect(mail.to).toEqual([owner.email]);
  expect(mail.raw).toContain('$5.00');
  expect(smtp.mails.filter((m) => m.subject === mail.subject)).toHaveLength(1);
});

it('renews the suspended service on a top-up and starts the same node', async () => {
  await addCredits(s.deps.db, owner.id, 20, 'Top-up');
  // The credit alone renews it (decision 020): the period's one charge.
  await waitFor('the resumption', async () => (await serviceRow(serviceId)).state === 'active');
  await waitFor('the node to run', async () => (await nodeState(serviceId)) === 'running');
  expect(await renewalCharges(serviceId)).toHaveLength(2);
  expect(await installs(serviceId)).toBe(1);
  expect(await balance(owner.id)).toBe('15.00');
  expect((await events(owner, serviceId)).slice(-3)).toEqual(['renewed', 'start_requested', 'started']);
});

it('warns once per period, three days before a renewal the balance cannot cover', async () => {
  const poor = await createTestUser(s, { credits: 10 });
  const id = await activeService(poor, 'poor-node');
  expect(await balance(poor.id)).toBe('0.00');
  await setRenewsAt(id, `now() + interval '4 days'`);
  await sweepTwice();
  const subject = 'Add credit to keep poor-node running';
  expect(smtp.mails.filter((m) => m.subject === subject)).toHaveLength(0);
  await setRenewsAt(id, `now() + interval '2 days'`);
  await sweepTwice();
  await sweepTwice();
  await waitFor('the warning', async () => smtp.mails.some((m) => m.subject === subject));
  expect(smtp.mails.filter((m) => m.subject === subject)).toHaveLength(1);
  // A new period is a new warning.
  await setRenewsAt(id, `now() + interval '1 day'`);
  await sweepTwice();
  await waitFor('the second warning', async () => smtp.mails.filter((m) => m.subject === subject).length === 2);
  // The owner who can pay is not warned.
  await setRenewsAt(serviceId, `now() + interval '2 days'`);
  await sweepTwice();
  expect(smtp.mails.filter((m) => m.subject === 'Add credit to keep renewing running')).toHaveLength(0);
});

it('records the months a renewal bought: 3 on the quarterly plan a service was extended onto', async () => {
  const u = await createTestUser(s, { credits: 70 });
  const id = await activeService(u, 'quarterly');
  const { error } = await u.client.rpc('extend_service_expiration', { p_service_id: id, p_product_id: TOWN_STAR_QUARTERLY, p_months: 3 });
  expect(error).toBeNull();
  await setRenewsAt(id, `now() - interval '1 minute'`);
  await sweepTwice();
  expect(await renewedDetails(u, id)).toEqual([expect.objectContaining({ months: 3, charged: 30 })]);
  expect(await balance(u.id)).toBe('0.00');
  const after = (await serviceRow(id)).renews_at.getTime();
  expect(after).toBeGreaterThan(Date.now() + 88 * 86_400_000);
  expect(after).toBeLessThan(Date.now() + 93 * 86_400_000);
});
