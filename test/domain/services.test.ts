import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/shared/validation';
import { startTestServer, type TestServer } from '../helpers/server';
import { forceServiceState } from '../helpers/service-state';
import { createTestUser, GALA_KEY, LICENCE_KEY, MASTER_NODE, TOWN_STAR, TOWN_STAR_QUARTERLY, type TestUser } from '../helpers/users';
import { expectLedgerBalanced } from '../helpers/ledger';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
});
// Money moves here: every balance stays its ledger's sum.
afterEach(() => expectLedgerBalanced(s.deps.db));
afterAll(() => s.stop());

type Svc = { id: string; name: string; api_key: string; renews_at: string | null; is_installed: boolean; reused: boolean; charged: number };

async function create(u: TestUser, name: string, key = GALA_KEY, product: string | null = TOWN_STAR, description: string | null = null) {
  return u.client.rpc('create_service_securely', { p_name: name, p_description: description, p_api_key: key, p_product_id: product });
}
async function balance(u: TestUser): Promise<number> {
  const { data } = await u.client.from('user_credits').select('balance').eq('user_id', u.id).single();
  return Number((data as { balance: number }).balance);
}
/** What the worker does when a node is up: through the API, as the service role. */
async function install(id: string) {
  const { data, error } = await s.serviceClient().rpc('complete_service_installation', { p_service_id: id });
  expect({ data, error }).toEqual({ data: true, error: null });
}

describe('create_service_securely', () => {
  it('refuses an anonymous caller with the spec message', async () => {
    const { error, status } = await s.client().rpc('create_service_securely', {
      p_name: 'node1',
      p_description: null,
      p_api_key: GALA_KEY,
      p_product_id: TOWN_STAR,
    });
    expect(status).toBe(401);
    expect(error?.message).toBe(messages.notLoggedIn);
  });

  it('answers every spec §5 message, in order, and changes nothing', async () => {
    const u = await createTestUser(s, { credits: 100 });
    expect((await create(u, 'Taken-1')).error).toBeNull();
    const key = messages.apiKeyInvalid();
    const cases: [string, string, string | null, string, string | null][] = [
      ['', GALA_KEY, TOWN_STAR, messages.serviceNameRequired, null],
      ['   ', '', null, messages.serviceNameRequired, null],
      ['ab', '', null, messages.serviceNameShort, null],
      ['abcdefghijklmnopq', GALA_KEY, TOWN_STAR, messages.serviceNameLong, null],
      ['my node', GALA_KEY, TOWN_STAR, messages.serviceNameSpaces, null],
      ['node$', GALA_KEY, TOWN_STAR, messages.serviceNameChars, null],
      ['_node', GALA_KEY, TOWN_STAR, messages.serviceNameEdges, null],
      // Uniqueness is part of "name valid" (step 3): it comes before the key and the plan.
      ['taken-1', '', null, messages.serviceNameTaken, null],
      ['node1', '', null, messages.apiKeyRequired(), null],
      ['node1', 'short=', null, messages.planRequired, null],
      ['node1', GALA_KEY, '00000000-0000-4000-8000-0000000000ff', messages.planRequired, null],
      ['node1', 'short=', TOWN_STAR, key, messages.apiKeyDefaultLength()],
      [`node1`, `${'A'.repeat(21)} ${'A'.repeat(21)}=`, TOWN_STAR, key, messages.apiKeySpaces()],
      ['node1', 'A'.repeat(44), TOWN_STAR, key, messages.apiKeyDefaultEnding()],
      ['node1', `${'A'.repeat(42)}-=`, TOWN_STAR, key, messages.apiKeyChars()],
      // The Master Node's key is a "License key", as its label says.
      ['node1', '', MASTER_NODE, messages.apiKeyRequired('License key'), null],
      ['node1', 'MN-1', MASTER_NODE, messages.apiKeyInvalid('License key'), messages.apiKeyFormat('############-####-####-####-############', 'License key')],
      ['node1', GALA_KEY, MASTER_NODE, messages.apiKeyInvalid('License key'), 'The licence key contains only letters, digits and hyphens'],
    ];
    for (const [name, apiKey, product, message, details] of cases) {
      const { error, status } = await create(u, name, apiKey, product);
      expect({ name, apiKey, message: error?.message, details: error?.details ?? null, status }).toEqual({ name, apiKey, message, details, status: 400 });
    }
    expect(await balance(u)).toBe(90);
    const { data } = await u.client.from('services').select('name');
    expect(data).toEqual([{ name: 'Taken-1' }]);
  });

  it('charges the plan price with the spec description, and starts installing', async () => {
    const u = await createTestUser(s, { credits: 25 });
    const { data, error } = await create(u, 'Town-1', GALA_KEY, TOWN_STAR, 'first node');
    expect(error).toBeNull();
    const svc = data as Svc;
    expect(svc).toMatchObject({ name: 'Town-1', api_key: GALA_KEY, is_installed: false, reused: false, charged: 10 });
    const renews = new Date(svc.renews_at!).getTime();
    expect(renews).toBeGreaterThan(Date.now() + 27 * 86400_000);
    expect(await balance(u)).toBe(15);
    const { data: tx } = await u.client
      .from('credit_transactions')
      .select('type, amount, description, service_id')
      .eq('user_id', u.id)
      .eq('type', 'service_charge');
    expect(tx).toEqual([{ type: 'service_charge', amount: -10, description: 'Service creation for Town-1 (Town Star)', service_id: svc.id }]);
  });

  it('refuses a name already used, whatever its case', async () => {
    const u = await createTestUser(s, { credits: 30 });
    expect((await create(u, 'alpha')).error).toBeNull();
    const { error } = await create(u, 'ALPHA');
    expect(error?.message).toBe(messages.serviceNameTaken);
    expect(await balance(u)).toBe(20);
  });

  it('refuses when the balance is short and no reusable service exists', async () => {
    const u = await createTestUser(s, { credits: 5 });
    const { error, status } = await create(u, 'poor-node');
    expect(status).toBe(400);
    expect(error?.message).toBe(messages.insufficientFunds);
    expect(await balance(u)).toBe(5);
  });

  it('creates a Master Node with its own key rule, and stores the key encrypted', async () => {
    const u = await createTestUser(s, { credits: 3 });
    const { data, error } = await create(u, 'master-1', LICENCE_KEY, MASTER_NODE);
    expect(error).toBeNull();
    expect((data as Svc).api_key).toBe(LICENCE_KEY);
    const { rows } = await s.deps.db.query<{ raw: Buffer }>('select api_key_encrypted as raw from private.services where id = $1', [(data as Svc).id]);
    expect(Buffer.from(rows[0]!.raw).toString('latin1')).not.toContain(LICENCE_KEY);
  });

  it('shows each user only their own services, the key decrypted for its owner', async () => {
    const a = await createTestUser(s, { credits: 10 });
    const b = await createTestUser(s);
    const { data: created } = await create(a, 'mine');
    const { data: mine } = await a.client
      .from('services')
      .select('name, api_key')
      .eq('is_deleted', false)
      .eq('is_deleting', false)
      .order('created_at', { ascending: false });
    expect(mine).toEqual([{ name: 'mine', api_key: GALA_KEY }]);
    const { data: theirs } = await b.client
      .from('services')
      .select('id')
      .eq('id', (created as Svc).id);
    expect(theirs).toEqual([]);
    const { status } = await s.client().from('services').select('id');
    expect(status).toBe(401);
  });
});

describe('deleting, reuse and reactivation', () => {
  it('deletes in two steps, then reuses the paid service for the next creation without a charge', async () => {
    const u = await createTestUser(s, { credits: 10 });
    const svc = (await create(u, 'reuse-me')).data as Svc;
    const early = await u.client.rpc('manage_service_operation', { p_service_id: svc.id, p_operation: 'delete' });
    expect(early.error?.message).toBe('Cannot delete, service is currently installing...');
    await install(svc.id);
    const del = await u.client.rpc('manage_service_operation', { p_service_id: svc.id, p_operation: 'delete' });
    expect(del.error).toBeNull();
    expect(del.data).toMatchObject({ is_deleting: true, is_deleted: false });
    const again = await u.client.rpc('manage_service_operation', { p_service_id: svc.id, p_operation: 'delete' });
    expect(again.error?.message).toBe('Service is currently being deleted...');
    const done = await s.serviceClient().rpc('complete_service_deletion', { p_service_id: svc.id });
    expect(done.data).toBe(true);

    const { data: unused } = await u.client.rpc('get_unused_purchased_services', { p_user_id: u.id });
    expect(unused).toEqual([expect.objectContaining({ id: svc.id, name: 'reuse-me', product_id: TOWN_STAR, product_name: 'Town Star', product_price: 10 })]);

    // The old name is free again, and the paid period is reused: no charge, new name, new key, no description.
    const newKey = `${'B'.repeat(43)}=`;
    const { data, error } = await create(u, 'reuse-me', newKey, TOWN_STAR, 'ignored on reuse');
    expect(error).toBeNull();
    expect(data).toMatchObject({ id: svc.id, name: 'reuse-me', api_key: newKey, description: null, reused: true, charged: 0, is_installed: false });
    expect(await balance(u)).toBe(0);
  });

  it('reuses the earliest renewal first and one-time services last', async () => {
    const u = await createTestUser(s, { credits: 30 });
    const ids: string[] = [];
    for (const n of ['early', 'late', 'onetime']) {
      const svc = (await create(u, n)).data as Svc;
      ids.push(svc.id);
    }
    await forceServiceState(
      s.deps.db,
      'deleted',
      'user_id = $1',
      u.id,
      `renews_at = case name when 'early' then now() + interval '2 days' when 'late' then now() + interval '20 days' end`,
    );
    const order: string[] = [];
    for (const n of ['next-1', 'next-2', 'next-3']) order.push(((await create(u, n)).data as Svc).id);
    expect(order).toEqual(ids);
    expect(await balance(u)).toBe(0);
  });

  it('does not reuse an expired service', async () => {
    const u = await createTestUser(s, { credits: 10 });
    const svc = (await create(u, 'old')).data as Svc;
    await forceServiceState(s.deps.db, 'deleted', 'id = $1', svc.id, `renews_at = now() - interval '1 day'`);
    expect((await u.client.rpc('get_unused_purchased_services', { p_user_id: u.id })).data).toEqual([]);
    expect((await create(u, 'new1')).error?.message).toBe(messages.insufficientFunds);
  });

  it('reactivates and updates with the same rules', async () => {
    const u = await createTestUser(s, { credits: 20 });
    const a = (await create(u, 'svc-a')).data as Svc;
    const b = (await create(u, 'svc-b')).data as Svc;
    await install(a.id);
    const rename = await u.client.rpc('manage_service_operation', { p_service_id: a.id, p_operation: 'update', p_updates: { name: 'SVC-B' } });
    expect(rename.error?.message).toBe(messages.serviceNameTaken);
    const bad = await u.client.rpc('manage_service_operation', { p_service_id: a.id, p_operation: 'update', p_updates: { name: 'x y' } });
    expect(bad.error?.message).toBe(messages.serviceNameSpaces);
    const flags = await u.client.rpc('manage_service_operation', { p_service_id: a.id, p_operation: 'update', p_updates: { is_installed: true } });
    expect(flags.error?.message).toBe('Only name, description and api_key can be updated');
    const badKey = await u.client.rpc('manage_service_operation', { p_service_id: a.id, p_operation: 'update', p_updates: { api_key: 'short=' } });
    expect(badKey.error).toMatchObject({ message: messages.apiKeyInvalid(), details: messages.apiKeyDefaultLength() });
    const notText = await u.client.rpc('manage_service_operation', { p_service_id: a.id, p_operation: 'update', p_updates: { name: 42 } });
    expect(notText.error?.message).toBe('name, description and api_key must be text');
    const ok = await u.client.rpc('manage_service_operation', { p_service_id: a.id, p_operation: 'update', p_updates: { description: 'renamed' } });
    expect(ok.data).toMatchObject({ name: 'svc-a', description: 'renamed' });

    const notDeleted = await u.client.rpc('manage_service_operation', {
      p_service_id: b.id,
      p_operation: 'reactivate',
      p_updates: { name: 'svc-c', description: null, api_key: GALA_KEY },
    });
    expect(notDeleted.error?.message).toBe('This service cannot be reactivated');
    await forceServiceState(s.deps.db, 'deleted', 'id = $1', b.id);
    const re = await u.client.rpc('manage_service_operation', {
      p_service_id: b.id,
      p_operation: 'reactivate',
      p_updates: { name: 'svc-c', description: null, api_key: GALA_KEY },
    });
    expect(re.error).toBeNull();
    expect(re.data).toMatchObject({ name: 'svc-c', is_deleted: false, is_installed: false });

    const other = await createTestUser(s);
    const foreign = await other.client.rpc('manage_service_operation', { p_service_id: a.id, p_operation: 'delete' });
    expect(foreign.status).toBe(404);
    const unknown = await u.client.rpc('manage_service_operation', { p_service_id: a.id, p_operation: 'explode' });
    expect(unknown.error?.message).toBe('Unknown operation: explode');
  });
});

describe('extend_service_expiration', () => {
  async function installed(u: TestUser, name: string, product = TOWN_STAR): Promise<Svc> {
    const svc = (await create(u, name, product === MASTER_NODE ? LICENCE_KEY : GALA_KEY, product)).data as Svc;
    await install(svc.id);
    return svc;
  }

  it('adds months from the later of now and the renewal date, and charges price × months', async () => {
    const u = await createTestUser(s, { credits: 40 });
    const svc = await installed(u, 'ext-1');
    const { data, error } = await u.client.rpc('extend_service_expiration', { p_service_id: svc.id, p_product_id: TOWN_STAR, p_months: 3 });
    expect(error).toBeNull();
    const renews = new Date((data as Svc).renews_at!);
    const expected = new Date(svc.renews_at!);
    expected.setUTCMonth(expected.getUTCMonth() + 3);
    expect(Math.abs(renews.getTime() - expected.getTime())).toBeLessThan(3 * 86400_000);
    expect(data).toMatchObject({ charged: 30, months: 3 });
    expect(await balance(u)).toBe(0);
  });

  it('restarts an expired service from now', async () => {
    const u = await createTestUser(s, { credits: 20 });
    const svc = await installed(u, 'ext-2');
    await forceServiceState(s.deps.db, 'expired', 'id = $1', svc.id, `renews_at = now() - interval '40 days'`);
    const { data } = await u.client.rpc('extend_service_expiration', { p_service_id: svc.id, p_product_id: TOWN_STAR, p_months: 1 });
    const renews = new Date((data as Svc).renews_at!).getTime();
    expect(renews).toBeGreaterThan(Date.now() + 27 * 86400_000);
    expect(renews).toBeLessThan(Date.now() + 32 * 86400_000);
    expect(data).toMatchObject({ expired: false });
  });

  it('takes quarterly units of 3 months at the quarterly price', async () => {
    const u = await createTestUser(s, { credits: 100 });
    const svc = await installed(u, 'ext-3');
    const bad = await u.client.rpc('extend_service_expiration', { p_service_id: svc.id, p_product_id: TOWN_STAR_QUARTERLY, p_months: 4 });
    expect(bad.error?.message).toBe('Choose 3 or 6 months');
    const { data, error } = await u.client.rpc('extend_service_expiration', { p_service_id: svc.id, p_product_id: TOWN_STAR_QUARTERLY, p_months: 6 });
    expect(error).toBeNull();
    expect(data).toMatchObject({ charged: 60, product_id: TOWN_STAR_QUARTERLY });
    expect(await balance(u)).toBe(30);
  });

  it('answers the spec messages and changes nothing', async () => {
    const u = await createTestUser(s, { credits: 15 });
    const svc = await installed(u, 'ext-4');
    const none = await u.client.rpc('extend_service_expiration', { p_service_id: svc.id, p_product_id: null, p_months: 1 });
    expect(none.error?.message).toBe(messages.extendProductRequired);
    const months = await u.client.rpc('extend_service_expiration', { p_service_id: svc.id, p_product_id: TOWN_STAR, p_months: 7 });
    expect(months.error?.message).toBe('Choose 1 to 6 months');
    const incompatible = await u.client.rpc('extend_service_expiration', { p_service_id: svc.id, p_product_id: MASTER_NODE, p_months: 1 });
    expect(incompatible.error?.message).toBe('This product cannot extend this service');
    const poor = await u.client.rpc('extend_service_expiration', { p_service_id: svc.id, p_product_id: TOWN_STAR, p_months: 2 });
    expect(poor.error).toMatchObject({ message: messages.insufficientCredits, details: messages.insufficientCreditsDetail(20, 5) });
    expect(await balance(u)).toBe(5);
    const installing = (await create(u, 'ext-5', LICENCE_KEY, MASTER_NODE)).data as Svc;
    const busy = await u.client.rpc('extend_service_expiration', { p_service_id: installing.id, p_product_id: MASTER_NODE, p_months: 1 });
    expect(busy.error?.message).toBe('Cannot extend, service is currently installing...');
  });
});

describe("the worker's side of the lifecycle", () => {
  const lifecycle = ['complete_service_installation', 'complete_service_deletion', 'renew_service'] as const;

  it('is refused to users and visitors, and changes nothing', async () => {
    const u = await createTestUser(s, { credits: 10 });
    const svc = (await create(u, 'not-yours')).data as Svc;
    for (const fn of lifecycle) {
      expect((await u.client.rpc(fn, { p_service_id: svc.id })).status).toBe(403);
      expect((await s.client().rpc(fn, { p_service_id: svc.id })).status).toBe(401);
    }
    expect((await u.client.rpc('due_service_renewals')).status).toBe(403);
    const { data } = await u.client.from('services').select('is_installed, is_deleted, renews_at').eq('id', svc.id).single();
    expect(data).toEqual({ is_installed: false, is_deleted: false, renews_at: svc.renews_at });
  });

  it('answers false when there is nothing to do, so a retried job is harmless', async () => {
    const u = await createTestUser(s, { credits: 10 });
    const svc = (await create(u, 'twice')).data as Svc;
    await install(svc.id);
    expect((await s.serviceClient().rpc('complete_service_installation', { p_service_id: svc.id })).data).toBe(false);
    expect((await s.serviceClient().rpc('complete_service_deletion', { p_service_id: svc.id })).data).toBe(false);
  });

  it('renews a due service once, charging the plan price for the next period', async () => {
    const u = await createTestUser(s, { credits: 25 });
    const svc = (await create(u, 'renew-me')).data as Svc;
    await install(svc.id);
    await s.deps.db.query(`update private.services set renews_at = now() - interval '1 hour' where id = $1`, [svc.id]);
    const due = await s.serviceClient().rpc('due_service_renewals', { p_limit: 1000 });
    expect(due.data).toContain(svc.id);

    const runs = await Promise.all([1, 2, 3].map(() => s.serviceClient().rpc('renew_service', { p_service_id: svc.id })));
    expect(runs.map((r) => r.data).sort()).toEqual(['not_due', 'not_due', 'renewed']);
    expect(await balance(u)).toBe(5);
    const { data } = await u.client.from('services').select('renews_at, expired').eq('id', svc.id).single();
    const renews = new Date((data as { renews_at: string }).renews_at).getTime();
    expect(renews).toBeGreaterThan(Date.now() + 26 * 86400_000);
    expect(data).toMatchObject({ expired: false });
    const { data: tx } = await u.client.from('credit_transactions').select('description, amount').eq('service_id', svc.id).order('created_at');
    expect(tx).toEqual([
      { description: 'Service creation for renew-me (Town Star)', amount: -10 },
      { description: 'Service renewal for renew-me (Town Star)', amount: -10 },
    ]);
  });

  it('suspends a due service when the balance is short, and extending brings it back with its node started', async () => {
    const u = await createTestUser(s, { credits: 15 });
    const svc = (await create(u, 'short-renew')).data as Svc;
    await install(svc.id);
    await s.deps.db.query(`update private.services set renews_at = now() - interval '1 minute' where id = $1`, [svc.id]);
    expect((await s.serviceClient().rpc('renew_service', { p_service_id: svc.id })).data).toBe('suspended');
    expect(await balance(u)).toBe(5);
    expect((await s.serviceClient().rpc('due_service_renewals')).data).not.toContain(svc.id);
    const suspended = await u.client.from('services').select('state, expired, terminates_at').eq('id', svc.id).single();
    expect(suspended.data).toMatchObject({ state: 'suspended', expired: true });
    // Not before its end: a repeated call does nothing.
    expect((await s.serviceClient().rpc('renew_service', { p_service_id: svc.id })).data).toBe('not_due');
    const ext = await u.client.rpc('extend_service_expiration', { p_service_id: svc.id, p_product_id: MASTER_NODE, p_months: 1 });
    expect(ext.error?.message).toBe('This product cannot extend this service');
    // No worker runs here: the resumption the credit queues waits, and the owner extends first.
    await s.serviceClient().rpc('update_user_credits', { p_user_id: u.id, p_amount: 5, p_transaction_type: 'purchase', p_description: 'Top-up' });
    const back = await u.client.rpc('extend_service_expiration', { p_service_id: svc.id, p_product_id: TOWN_STAR, p_months: 1 });
    expect(back.data).toMatchObject({ expired: false, state: 'active', terminates_at: null });
    const { rows: jobs } = await s.deps.db.query<{ task: string }>(
      `select task from nodeharbor.jobs where payload->>'serviceId' = $1 or payload->>'userId' = $2 order by id`,
      [svc.id, u.id],
    );
    expect(jobs.map((j) => j.task).slice(-3)).toEqual(['stop-service', 'resume-services', 'start-service']);
    // The queued resumption, run late, finds nothing suspended to renew.
    expect((await s.serviceClient().rpc('renew_service', { p_service_id: svc.id })).data).toBe('not_due');
    expect(await balance(u)).toBe(0);
  });
});
