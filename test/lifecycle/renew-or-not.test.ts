import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { enqueue } from '../../src/server/jobs/queue';
import { day } from '../../src/server/mail/templates/layout';
import { expectLedgerBalanced } from '../helpers/ledger';
import { createService, createTestUser, TOWN_STAR, type TestUser } from '../helpers/users';
import { queueIsIdle, startLifecycleServer, waitFor } from './helpers';

// Each service renews, or not, as its owner says (issue 36, item 4; decision 037): through the
// real worker's renewal sweep, on the real server. Time passes by moving renews_at, as the renewal
// tests do. Mail is kept in the outbox (no SMTP here), where its words are read.

let s: Awaited<ReturnType<typeof startLifecycleServer>>;
beforeAll(async () => {
  s = await startLifecycleServer();
});
// Money moves here: every balance stays its ledger's sum.
afterEach(() => expectLedgerBalanced(s.deps.db));
afterAll(() => s.stop());

const sql = <T>(text: string, params: unknown[] = []) => s.deps.db.query<T>(text, params).then((r) => r.rows);
type Row = { state: string; renews_at: Date; terminates_at: Date | null; auto_renew: boolean };
const row = async (id: string) =>
  (await sql<Row>('select state::text as state, renews_at, terminates_at, auto_renew from private.services where id = $1', [id]))[0]!;
const balance = async (userId: string) => (await sql<{ balance: string }>('select balance from public.user_credits where user_id = $1', [userId]))[0]!.balance;
const charges = async (id: string) =>
  (
    await sql<{ description: string; amount: string }>('select description, amount from public.credit_transactions where service_id = $1 order by created_at', [
      id,
    ])
  ).map((t) => `${t.description}: ${t.amount}`);
const events = async (id: string) =>
  sql<{ event: string; detail: unknown }>('select event, detail from public.service_events where service_id = $1 order by id', [id]);
const node = async (id: string) =>
  (await sql<{ state: string; installs: number }>('select state, installs from nodeharbor.simulated_nodes where service_id = $1', [id]))[0];
/** The owner's mails of renewal and its end (the install's "is active" and the monitor's node mails are others' to test). */
const mails = (to: string) =>
  sql<{ subject: string; text_body: string }>(
    `select subject, text_body from nodeharbor.outbox
      where to_address = $1 and subject not like '% is active' and subject not like 'Your node %' order by id`,
    [to],
  );
const drain = () => waitFor('the queue to drain', () => queueIsIdle(s.deps.db));
/** Two sweeps made visible at once, as two workers' schedules could make them. */
async function sweepTwice() {
  await s.deps.db.transaction(async (tx) => {
    await enqueue(tx, 'renewal-sweep', {});
    await enqueue(tx, 'renewal-sweep', {});
  });
  await drain();
}
const setRenewsAt = (id: string, when: string) => sql(`update private.services set renews_at = ${when} where id = $1`, [id]);

/** A running Town Star service ($10 a month, paid from `credits`) of a new owner, renewing or not as `autoRenew` says. */
async function running(name: string, credits: number, autoRenew: boolean): Promise<{ owner: TestUser; id: string }> {
  const owner = await createTestUser(s, { credits });
  const id = await createService(owner, name);
  await waitFor('the install', async () => (await row(id)).state === 'active');
  await waitFor('the node to run', async () => (await node(id))?.state === 'running');
  if (!autoRenew) {
    const { error } = await owner.client.rpc('set_service_auto_renew', { p_service_id: id, p_auto_renew: false });
    expect(error).toBeNull();
  }
  return { owner, id };
}

it('renewal off: at the end of its paid period the service expires, uncharged and never suspended, its node stopped and kept, and the owner is told once', async () => {
  // The balance would cover a renewal ($10 left): nothing is taken all the same.
  const { owner, id } = await running('ends-rich', 20, false);
  // And one whose balance would not: no suspension either.
  const poor = await running('ends-poor', 10, false);
  for (const svc of [id, poor.id]) await setRenewsAt(svc, `now() - interval '1 minute'`);
  await sweepTwice();
  await sweepTwice();

  for (const [svc, who, left] of [
    [id, owner, '10.00'],
    [poor.id, poor.owner, '0.00'],
  ] as const) {
    expect(await row(svc)).toMatchObject({ state: 'expired', terminates_at: null, auto_renew: false });
    expect(await balance(who.id)).toBe(left);
    expect(await charges(svc)).toEqual([`Service creation for ${svc === id ? 'ends-rich' : 'ends-poor'} (Town Star): -10.00`]);
    await waitFor('the node to stop', async () => (await node(svc))?.state === 'stopped');
    // Stopped, not removed: Extend starts the same node.
    expect((await node(svc))!.installs).toBe(1);
    const told = await events(svc);
    expect(told.map((e) => e.event)).not.toContain('suspended');
    expect(told.slice(-3)).toEqual([
      { event: 'auto_renew_off', detail: null },
      { event: 'expired', detail: { reason: 'auto_renew_off' } },
      { event: 'stopped', detail: null },
    ]);
  }
  const name = 'ends-rich';
  expect(await mails(owner.email)).toEqual([
    {
      subject: `Your service ${name} has expired`,
      text_body: [
        `Your service ${name} has reached the end of its paid period and, as automatic renewal was off, it was not renewed: nothing was charged. Its node has been stopped.`,
        'Extend the service from your dashboard to start it again.',
      ].join('\n\n'),
    },
  ]);
  expect((await mails(poor.owner.email)).map((m) => m.subject)).toEqual(['Your service ends-poor has expired']);
  // The owner reads it as an expired service.
  const { data } = await owner.client.from('services').select('state, expired, auto_renew').eq('id', id).single();
  expect(data).toEqual({ state: 'expired', expired: true, auto_renew: false });

  // After the end the switch is no way back; the existing Extend is, and it keeps the owner's word.
  const late = await owner.client.rpc('set_service_auto_renew', { p_service_id: id, p_auto_renew: true });
  expect(late.error?.message).toBe('This service has expired. Extend it to start it again.');
  expect((await row(id)).auto_renew).toBe(false);
  const extended = await owner.client.rpc('extend_service_expiration', { p_service_id: id, p_product_id: TOWN_STAR, p_months: 1 });
  expect(extended.error).toBeNull();
  expect(await row(id)).toMatchObject({ state: 'active', auto_renew: false });
  await waitFor('the node to run again', async () => (await node(id))?.state === 'running');
  expect((await node(id))!.installs).toBe(1);
  expect(await balance(owner.id)).toBe('0.00');
});

it('renewal on, turned off and on again before the end: renews as today, charged once for the period', async () => {
  const { owner, id } = await running('renews-on', 20, false);
  expect((await owner.client.rpc('set_service_auto_renew', { p_service_id: id, p_auto_renew: true })).error).toBeNull();
  await setRenewsAt(id, `now() - interval '1 minute'`);
  await sweepTwice();
  await sweepTwice();
  const after = await row(id);
  expect(after).toMatchObject({ state: 'active', terminates_at: null, auto_renew: true });
  expect(after.renews_at.getTime()).toBeGreaterThan(Date.now() + 27 * 86_400_000);
  expect(await charges(id)).toEqual(['Service creation for renews-on (Town Star): -10.00', 'Service renewal for renews-on (Town Star): -10.00']);
  expect(await balance(owner.id)).toBe('0.00');
  // The node's own events (node_online, when a sweep first sees it) may fall anywhere among these.
  const billing = (await events(id)).map((e) => e.event).filter((e) => !e.startsWith('node_'));
  expect(billing.slice(-3)).toEqual(['auto_renew_off', 'auto_renew_on', 'renewed']);
  expect((await node(id))!.state).toBe('running');
  await waitFor('the renewal mail', async () => (await mails(owner.email)).some((m) => m.subject === 'Your service renews-on has been renewed'));
});

it('reminds three days before the end: "will not renew" when renewal is off (whatever the balance), the low-balance warning when it is on; once per period', async () => {
  const offPoor = await running('off-poor', 10, false);
  const offRich = await running('off-rich', 30, false);
  const onPoor = await running('on-poor', 10, true);
  const onRich = await running('on-rich', 30, true);
  const all = [offPoor, offRich, onPoor, onRich];
  for (const { id } of all) await setRenewsAt(id, `now() + interval '4 days'`);
  await sweepTwice();
  for (const { owner } of all) expect(await mails(owner.email)).toEqual([]);

  for (const { id } of all) await setRenewsAt(id, `now() + interval '2 days'`);
  await sweepTwice();
  await sweepTwice();
  for (const [{ owner, id }, name] of [
    [offPoor, 'off-poor'],
    [offRich, 'off-rich'],
  ] as const) {
    const ends = day((await row(id)).renews_at);
    expect(await mails(owner.email)).toEqual([
      {
        subject: `Your service ${name} will not renew`,
        text_body: [
          `Automatic renewal is off for your service ${name}, so it will not renew: it ends with its paid period on ${ends}, its node is then stopped, and nothing more is charged.`,
          'To keep it running, turn on Renew automatically on its page in your dashboard before then. Once it has ended, you can still extend it to start it again.',
        ].join('\n\n'),
      },
    ]);
  }
  // Renewing as today: the owner who cannot pay is warned of the charge and the suspension, the one who can is not.
  expect(await mails(onPoor.owner.email)).toEqual([
    {
      subject: 'Add credit to keep on-poor running',
      text_body: [
        `Your service on-poor renews on ${day((await row(onPoor.id)).renews_at)} for $10.00, but your balance is $0.00.`,
        'Without more credit by then, the service will be suspended and its node stopped. You can add credit from Billing.',
      ].join('\n\n'),
    },
  ]);
  expect(await mails(onRich.owner.email)).toEqual([]);

  // Switched: the warning follows the owner's word within the period.
  expect((await onPoor.owner.client.rpc('set_service_auto_renew', { p_service_id: onPoor.id, p_auto_renew: false })).error).toBeNull();
  expect((await offRich.owner.client.rpc('set_service_auto_renew', { p_service_id: offRich.id, p_auto_renew: true })).error).toBeNull();
  await sweepTwice();
  expect((await mails(onPoor.owner.email)).map((m) => m.subject)).toEqual(['Add credit to keep on-poor running', 'Your service on-poor will not renew']);
  expect((await mails(offRich.owner.email)).map((m) => m.subject)).toEqual(['Your service off-rich will not renew']);
  // A new period is a new reminder.
  await setRenewsAt(offPoor.id, `now() + interval '1 day'`);
  await sweepTwice();
  expect((await mails(offPoor.owner.email)).map((m) => m.subject)).toEqual(['Your service off-poor will not renew', 'Your service off-poor will not renew']);
});
