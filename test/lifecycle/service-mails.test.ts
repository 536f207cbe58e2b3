import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { enqueue } from '../../src/server/jobs/queue';
import { createTestUser, GALA_KEY, TOWN_STAR, type TestUser } from '../helpers/users';
import { jobsOf, queueIsIdle, startLifecycleServer, startSmtp, waitFor } from './helpers';
import { expectLedgerBalanced } from '../helpers/ledger';

// The mails the worker sends when a node becomes active and when a service expires: each once,
// however often its job runs.

let s: Awaited<ReturnType<typeof startLifecycleServer>>;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let owner: TestUser;

beforeAll(async () => {
  smtp = await startSmtp();
  s = await startLifecycleServer({ SMTP_URL: smtp.url, PUBLIC_URL: 'http://localhost:9999' });
  owner = await createTestUser(s, { credits: 10 });
});
// Money moves here: every balance stays its ledger's sum.
afterEach(() => expectLedgerBalanced(s.deps.db));
afterAll(async () => {
  await s.stop();
  await smtp.stop();
});

const mailsWith = (subject: string) => smtp.mails.filter((m) => m.subject === subject);
/** The text part as sent: quoted-printable soft breaks undone. */
const textOf = (raw: string) => raw.replace(/=\r?\n/g, '');
const idle = () => waitFor('the queue to drain', () => queueIsIdle(s.deps.db));

let serviceId: string;

it('mails the owner once when the node becomes active, with its paid period and its page', async () => {
  const { data, error } = await owner.client.rpc('create_service_securely', {
    p_name: 'mail-node',
    p_description: null,
    p_api_key: GALA_KEY,
    p_product_id: TOWN_STAR,
  });
  expect(error).toBeNull();
  serviceId = (data as { id: string }).id;
  const mail = await waitFor('the active mail', async () => mailsWith('Your service mail-node is active')[0]);
  expect(mail.to).toEqual([owner.email]);
  const { rows } = await s.deps.db.query<{ renews_at: Date }>('select renews_at from private.services where id = $1', [serviceId]);
  const paidUntil = rows[0]!.renews_at.toLocaleDateString('en-US', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' });
  expect(textOf(mail.raw)).toContain('The node of your service mail-node is installed and running.');
  expect(textOf(mail.raw)).toContain(`lasts until ${paidUntil}.`);
  expect(textOf(mail.raw)).toContain(`http://localhost:9999/dashboard/services/${serviceId}`);

  // The same job delivered again (at-least-once, or a worker killed after its commit): no second mail.
  const [job] = await jobsOf(s.deps.db, 'install-service');
  await enqueue(s.deps.db, 'install-service', job!.payload);
  await idle();
  expect(mailsWith('Your service mail-node is active')).toHaveLength(1);
  const { rows: outbox } = await s.deps.db.query('select 1 from nodeharbor.outbox where subject = $1', ['Your service mail-node is active']);
  expect(outbox).toHaveLength(1);
});

it('mails the owner once when the service is suspended, however often the renewal runs', async () => {
  // The $10 went on the first period: nothing is left for the next.
  await s.deps.db.query(`update private.services set renews_at = now() - interval '1 minute' where id = $1`, [serviceId]);
  const sweep = async () => {
    await enqueue(s.deps.db, 'renewal-sweep', {});
    await idle();
  };
  await sweep();
  const mail = await waitFor('the suspension mail', async () => mailsWith('Your mail-node service is suspended')[0]);
  expect(mail.to).toEqual([owner.email]);
  expect(textOf(mail.raw)).toContain('it costs $10.00 and your balance is $0.00. Its node has been stopped, and is kept until');
  expect(textOf(mail.raw)).toContain('Add at least $10.00');
  const [job] = await jobsOf(s.deps.db, 'renew-service');
  await enqueue(s.deps.db, 'renew-service', job!.payload);
  await sweep();
  await idle();
  expect(mailsWith('Your mail-node service is suspended')).toHaveLength(1);
});

it('mails again when a reused service becomes active: a new installation is a new mail', async () => {
  // Time left on its period, so that the deleted service is reusable.
  await s.deps.db.query(`update private.services set renews_at = now() + interval '20 days' where id = $1`, [serviceId]);
  expect((await owner.client.rpc('manage_service_operation', { p_service_id: serviceId, p_operation: 'delete' })).error).toBeNull();
  await waitFor('the deletion', async () => {
    const { rows } = await s.deps.db.query<{ state: string }>('select state::text from private.services where id = $1', [serviceId]);
    return rows[0]!.state === 'deleted';
  });
  const { data, error } = await owner.client.rpc('create_service_securely', {
    p_name: 'mail-node',
    p_description: null,
    p_api_key: GALA_KEY,
    p_product_id: TOWN_STAR,
  });
  expect(error).toBeNull();
  expect(data).toMatchObject({ id: serviceId, reused: true });
  await waitFor('the second active mail', async () => mailsWith('Your service mail-node is active').length === 2);
  await idle();
  expect(mailsWith('Your service mail-node is active')).toHaveLength(2);
});
