import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { createTestUser, GALA_KEY, TOWN_STAR, type TestUser } from '../helpers/users';
import { jobsOf, startLifecycleServer, startSmtp, waitFor } from './helpers';
import { expectLedgerBalanced } from '../helpers/ledger';
import { NODE_EVENTS } from '../../src/shared/node-health';

let s: Awaited<ReturnType<typeof startLifecycleServer>>;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let owner: TestUser;
let stranger: TestUser;
beforeAll(async () => {
  smtp = await startSmtp();
  s = await startLifecycleServer({ PROVISION_INSTALL_SECONDS: '1', SMTP_URL: smtp.url });
  owner = await createTestUser(s, { credits: 30 });
  stranger = await createTestUser(s);
});
// Money moves here: every balance stays its ledger's sum.
afterEach(() => expectLedgerBalanced(s.deps.db));
afterAll(async () => {
  await s.stop();
  await smtp.stop();
});

type Service = { id: string; is_installed: boolean; is_deleting: boolean; is_deleted: boolean };
async function service(u: TestUser, id: string): Promise<Service> {
  const { data, error } = await u.client.from('services').select('id, is_installed, is_deleting, is_deleted').eq('id', id).single();
  if (error) throw error;
  return data as Service;
}
/**
 * The lifecycle's events of service `id`, in order. The worker's node monitor writes its own
 * (node_online, …) whenever its tick happens to fall, which a loaded machine moves: left out.
 */
async function events(u: TestUser, id: string): Promise<string[]> {
  const { data, error } = await u.client.from('service_events').select('event').eq('service_id', id).order('id');
  if (error) throw error;
  return (data as { event: string }[]).map((e) => e.event).filter((e) => !(NODE_EVENTS as readonly string[]).includes(e));
}

let serviceId: string;

it('installs a new service: installing, then active within the configured time, every step in its log', async () => {
  const started = Date.now();
  const { data, error } = await owner.client.rpc('create_service_securely', {
    p_name: 'life-node',
    p_description: null,
    p_api_key: GALA_KEY,
    p_product_id: TOWN_STAR,
  });
  expect(error).toBeNull();
  serviceId = (data as { id: string }).id;
  expect(await service(owner, serviceId)).toMatchObject({ is_installed: false, is_deleting: false });
  expect(await events(owner, serviceId)).toEqual(['install_requested']);

  await waitFor('the service to be active', async () => (await service(owner, serviceId)).is_installed, 10_000);
  // The simulated install takes PROVISION_INSTALL_SECONDS=1.
  expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  expect(await events(owner, serviceId)).toEqual(['install_requested', 'installed']);
  const node = await s.deps.db.query('select state, installs from nodeharbor.simulated_nodes where service_id = $1', [serviceId]);
  expect(node.rows).toEqual([{ state: 'running', installs: 1 }]);
});

it('shows the events to their owner only, and lets no API role write them', async () => {
  expect(await events(stranger, serviceId)).toEqual([]);
  expect((await s.client().from('service_events').select('event')).data ?? []).toEqual([]);
  const forged = await owner.client.from('service_events').insert({ service_id: serviceId, user_id: owner.id, event: 'installed' });
  expect(forged.error).not.toBeNull();
  const wiped = await owner.client.from('service_events').delete().eq('service_id', serviceId).select();
  expect(wiped.data ?? []).toEqual([]);
  expect(await events(owner, serviceId)).toEqual(['install_requested', 'installed']);
});

it('delivers the service mails to the SMTP relay through the send-email job, and no "being set up" after "is active"', async () => {
  const active = await waitFor('the mail at the relay', async () => smtp.mails.find((m) => m.subject === 'Your service life-node is active'));
  expect(active.to).toEqual([owner.email]);
  // The dashboard's call comes after the installation is over: its mail would follow the outcome's, so none is sent.
  const { error } = await owner.client.functions.invoke('send-sqs-message', { body: { serviceData: { id: serviceId } } });
  expect(error).toBeNull();
  await waitFor('every mail sent', async () => (await jobsOf(s.deps.db, 'send-email')).every((j) => j.status === 'done'));
  const { rows } = await s.deps.db.query<{ subject: string; status: string }>('select subject, status from nodeharbor.outbox where to_address = $1', [
    owner.email,
  ]);
  expect(rows).toEqual([{ subject: 'Your service life-node is active', status: 'sent' }]);
  expect(smtp.mails.map((m) => m.subject)).toEqual(['Your service life-node is active']);
});

it('deletes a service: deleting, then deleted and reusable, its node removed', async () => {
  const { error } = await owner.client.rpc('manage_service_operation', { p_service_id: serviceId, p_operation: 'delete' });
  expect(error).toBeNull();
  await waitFor('the deletion', async () => (await service(owner, serviceId)).is_deleted);
  expect(await service(owner, serviceId)).toMatchObject({ is_deleting: false, is_deleted: true });
  const unused = await owner.client.rpc('get_unused_purchased_services', { p_user_id: owner.id });
  expect((unused.data as { id: string }[]).map((u) => u.id)).toEqual([serviceId]);
  expect(await events(owner, serviceId)).toEqual(['install_requested', 'installed', 'delete_requested', 'deleted']);
  expect((await s.deps.db.query('select 1 from nodeharbor.simulated_nodes where service_id = $1', [serviceId])).rowCount).toBe(0);
});

it('reinstalls a reused service without charging again', async () => {
  const { rows: before } = await s.deps.db.query<{ balance: string }>('select balance from public.user_credits where user_id = $1', [owner.id]);
  const { data, error } = await owner.client.rpc('create_service_securely', {
    p_name: 'second-life',
    p_description: null,
    p_api_key: GALA_KEY,
    p_product_id: TOWN_STAR,
  });
  expect(error).toBeNull();
  expect(data).toMatchObject({ id: serviceId, reused: true, charged: 0 });
  await waitFor('the reinstall', async () => (await service(owner, serviceId)).is_installed);
  const { rows: after } = await s.deps.db.query<{ balance: string }>('select balance from public.user_credits where user_id = $1', [owner.id]);
  expect(after).toEqual(before);
  expect((await events(owner, serviceId)).slice(-2)).toEqual(['install_requested', 'installed']);
  // The job is marked done after its task returns, a moment after the service is active.
  await waitFor('the reinstall job to end', async () => (await jobsOf(s.deps.db, 'install-service')).every((j) => j.status === 'done'));
  expect((await jobsOf(s.deps.db, 'install-service')).map((j) => j.status)).toEqual(['done', 'done']);
});

it('reinstalls a service reactivated from the trash', async () => {
  expect((await owner.client.rpc('manage_service_operation', { p_service_id: serviceId, p_operation: 'delete' })).error).toBeNull();
  await waitFor('the deletion', async () => (await service(owner, serviceId)).is_deleted);
  const { error } = await owner.client.rpc('manage_service_operation', {
    p_service_id: serviceId,
    p_operation: 'reactivate',
    p_updates: { name: 'third-life', api_key: GALA_KEY },
  });
  expect(error).toBeNull();
  await waitFor('the reinstall', async () => (await service(owner, serviceId)).is_installed);
  expect((await events(owner, serviceId)).slice(-4)).toEqual(['delete_requested', 'deleted', 'install_requested', 'installed']);
});

it('enqueues nothing when the change is refused (the job shares the transaction)', async () => {
  const before = (await jobsOf(s.deps.db, 'install-service')).length;
  const { error } = await stranger.client.rpc('create_service_securely', {
    p_name: 'no-money',
    p_description: null,
    p_api_key: GALA_KEY,
    p_product_id: TOWN_STAR,
  });
  expect(error?.message).toMatch(/Insufficient funds/);
  expect((await jobsOf(s.deps.db, 'install-service')).length).toBe(before);
});
