import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser } from '../helpers/users';
import { userClient } from '../rest/fixtures';
import { expectLedgerBalanced } from '../helpers/ledger';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
});
// Money moves here: every balance stays its ledger's sum.
afterEach(() => expectLedgerBalanced(s.deps.db));
afterAll(() => s.stop());

async function ledger(userId: string) {
  const { rows } = await s.deps.db.query<{ balance: string; n: number }>(
    `select (select balance from public.user_credits where user_id = $1) as balance,
            (select count(*)::int from public.credit_transactions where user_id = $1) as n`,
    [userId],
  );
  return rows[0]!;
}

describe('update_user_credits', () => {
  it('refuses a positive amount from a user and changes nothing', async () => {
    const u = await createTestUser(s, { credits: 10 });
    const before = await ledger(u.id);
    const { data, error, status } = await u.client.rpc('update_user_credits', {
      p_user_id: u.id,
      p_amount: 100,
      p_transaction_type: 'purchase',
      p_description: 'Free money',
      p_service_id: null,
    });
    expect(data).toBeNull();
    expect(status).toBe(403);
    expect(error?.message).toBe('Only the service can add credit');
    expect(await ledger(u.id)).toEqual(before);
  });

  it("lets a user lower their own balance, answers false when it is short, and never touches another's", async () => {
    const u = await createTestUser(s, { credits: 10 });
    const other = await createTestUser(s, { credits: 10 });
    const charge = (userId: string, amount: number) =>
      u.client.rpc('update_user_credits', {
        p_user_id: userId,
        p_amount: amount,
        p_transaction_type: 'service_charge',
        p_description: 'Charge',
        p_service_id: null,
      });
    expect((await charge(u.id, -4)).data).toBe(true);
    expect(await ledger(u.id)).toEqual({ balance: '6.00', n: 2 });
    expect((await charge(u.id, -7)).data).toBe(false);
    expect(await ledger(u.id)).toEqual({ balance: '6.00', n: 2 });
    const foreign = await charge(other.id, -1);
    expect(foreign.error?.message).toBe('You can only change your own balance');
    expect(await ledger(other.id)).toEqual({ balance: '10.00', n: 1 });
    const odd = await charge(u.id, -0.001);
    expect(odd.error?.message).toBe('The amount must be a non-zero number of cents');
  });

  it('lets the service role add credit', async () => {
    const u = await createTestUser(s);
    const { data, error } = await s.serviceClient().rpc('update_user_credits', {
      p_user_id: u.id,
      p_amount: 25,
      p_transaction_type: 'purchase',
      p_description: 'Top-up',
      p_service_id: null,
    });
    expect(error).toBeNull();
    expect(data).toBe(true);
    expect(await ledger(u.id)).toEqual({ balance: '25.00', n: 1 });
  });

  it('counts a retried call with the same idempotency key once', async () => {
    const u = await createTestUser(s, { credits: 10 });
    const service = s.serviceClient();
    const topUp = () =>
      service.rpc('update_user_credits', {
        p_user_id: u.id,
        p_amount: 15,
        p_transaction_type: 'purchase',
        p_description: 'Order 42',
        p_idempotency_key: 'order-42',
      });
    const runs = await Promise.all([topUp(), topUp(), topUp()]);
    expect(runs.map((r) => r.data)).toEqual([true, true, true]);
    expect(await ledger(u.id)).toEqual({ balance: '25.00', n: 2 });

    const charge = () =>
      u.client.rpc('update_user_credits', {
        p_user_id: u.id,
        p_amount: -20,
        p_transaction_type: 'service_charge',
        p_description: 'Charge',
        p_idempotency_key: 'order-42',
      });
    // The user's key lives in its own namespace: it does not collide with the server's "order-42".
    expect((await charge()).data).toBe(true);
    expect(await ledger(u.id)).toEqual({ balance: '5.00', n: 3 });
    // Retried after it succeeded, it still answers true although the balance could not pay it again.
    expect((await charge()).data).toBe(true);
    expect(await ledger(u.id)).toEqual({ balance: '5.00', n: 3 });
  });

  it('lets a user record only a service charge, and refuses malformed calls without a change', async () => {
    const u = await createTestUser(s, { credits: 10 });
    const call = (args: Record<string, unknown>) =>
      u.client.rpc('update_user_credits', {
        p_user_id: u.id,
        p_amount: -1,
        p_transaction_type: 'service_charge',
        p_description: 'Charge',
        p_service_id: null,
        ...args,
      });
    expect((await call({ p_transaction_type: 'refund' })).error?.message).toBe('A user can only record a service_charge');
    expect((await call({ p_transaction_type: 'gift' })).error?.message).toBe('Unknown transaction type: gift');
    expect((await call({ p_description: ' ' })).error?.message).toBe('A description of 1 to 500 characters is required');
    expect((await call({ p_amount: -1e12 })).error?.message).toBe('The amount must be a non-zero number of cents');
    expect((await call({ p_amount: 'lots' })).status).toBe(400);
    expect((await call({ p_idempotency_key: '' })).error?.message).toBe('p_idempotency_key must be 1 to 200 characters');
    expect(await ledger(u.id)).toEqual({ balance: '10.00', n: 1 });
  });

  it("refuses a charge that names another user's service, or comes from a deleted account, and changes nothing", async () => {
    const u = await createTestUser(s, { credits: 10 });
    const other = await createTestUser(s, { credits: 20 });
    const { data } = await other.client.rpc('create_service_securely', {
      p_name: 'not-yours',
      p_description: null,
      p_api_key: `${'A'.repeat(43)}=`,
      p_product_id: '00000000-0000-4000-8000-000000000001',
    });
    const theirs = (data as { id: string }).id;
    const charge = (c: typeof u.client, args: Record<string, unknown> = {}) =>
      c.rpc('update_user_credits', { p_user_id: u.id, p_amount: -1, p_transaction_type: 'service_charge', p_description: 'Charge', ...args });
    expect((await charge(u.client, { p_service_id: theirs })).error?.message).toBe('No such service');
    expect((await charge(s.serviceClient(), { p_service_id: theirs })).error?.message).toBe('No such service');
    expect(await ledger(u.id)).toEqual({ balance: '10.00', n: 1 });

    // The account is deleted: its session ends with it, and even a token that names no session
    // (which only the server could sign) writes nothing.
    expect((await u.client.rpc('delete_own_account', { p_email: u.email })).error).toBeNull();
    const late = await charge(u.client);
    expect([late.status, late.error?.message]).toEqual([401, 'Session from session_id claim in JWT does not exist']);
    const sessionless = await charge(await userClient(s, u.id));
    expect([sessionless.status, sessionless.error?.message]).toEqual([403, 'You can only change your own balance']);
    expect(await ledger(u.id)).toEqual({ balance: '10.00', n: 1 });
  });

  it('keeps the ledger append-only, even for the owner connection', async () => {
    const u = await createTestUser(s, { credits: 5 });
    await expect(s.deps.db.query('update public.credit_transactions set amount = 500 where user_id = $1', [u.id])).rejects.toThrow('The ledger is append-only');
    await expect(s.deps.db.query('delete from public.credit_transactions where user_id = $1', [u.id])).rejects.toThrow('The ledger is append-only');
  });
});

describe('roles', () => {
  it('is_user_admin and has_dev_access answer for oneself, and for others only to an admin', async () => {
    const admin = await createTestUser(s, { admin: true });
    const dev = await createTestUser(s, { devAccess: true });
    const plain = await createTestUser(s);
    const ask = async (c: typeof plain.client, fn: string, id: string) => (await c.rpc(fn, { user_uuid: id })).data;
    expect(await ask(admin.client, 'is_user_admin', admin.id)).toBe(true);
    expect(await ask(plain.client, 'is_user_admin', plain.id)).toBe(false);
    expect(await ask(plain.client, 'is_user_admin', admin.id)).toBe(false);
    expect(await ask(admin.client, 'is_user_admin', plain.id)).toBe(false);
    expect(await ask(dev.client, 'has_dev_access', dev.id)).toBe(true);
    expect(await ask(plain.client, 'has_dev_access', plain.id)).toBe(false);
    expect(await ask(plain.client, 'has_dev_access', dev.id)).toBe(false);
    expect(await ask(admin.client, 'has_dev_access', admin.id)).toBe(true);
    expect(await ask(admin.client, 'has_dev_access', dev.id)).toBe(true);
    expect(await ask(s.client(), 'has_dev_access', dev.id)).toBe(false);
  });

  it('get_user_stats is for admins only, pages server-side and searches by e-mail', async () => {
    const admin = await createTestUser(s, { admin: true });
    const plain = await createTestUser(s, { email: 'needle-user@nodeharbor.test', fullName: 'Needle Person', credits: 10 });
    const refused = await plain.client.rpc('get_user_stats');
    expect(refused.status).toBe(403);
    expect(refused.error?.code).toBe('42501');
    const anon = await s.client().rpc('get_user_stats');
    expect(anon.status).toBe(401);

    await plain.client.rpc('create_service_securely', {
      p_name: 'needle-node',
      p_description: null,
      p_api_key: `${'A'.repeat(43)}=`,
      p_product_id: '00000000-0000-4000-8000-000000000001',
    });
    const { data: found } = await admin.client.rpc('get_user_stats', { p_search: 'NEEDLE' });
    expect(found).toEqual([
      expect.objectContaining({ email: 'needle-user@nodeharbor.test', full_name: 'Needle Person', active_services_count: 1, total_count: 1, balance: 0 }),
    ]);
    const { data: all } = await admin.client.rpc('get_user_stats');
    const total = (all as { total_count: number }[])[0]!.total_count;
    const { data: page } = await admin.client.rpc('get_user_stats', { p_limit: 2, p_offset: 1 });
    expect(page).toHaveLength(Math.min(2, total - 1));
    const { data: none } = await admin.client.rpc('get_user_stats', { p_search: 'no-such-person' });
    expect(none).toEqual([]);
    const { data: wild } = await admin.client.rpc('get_user_stats', { p_search: '%' });
    expect(wild).toEqual([]);
    const bad = await admin.client.rpc('get_user_stats', { p_limit: 0 });
    expect(bad.error?.message).toBe('p_limit must be 1 to 500 and p_offset at least 0');
  });
});

describe('admin_add_credit', () => {
  it('lets an admin add credit with a note, once per idempotency key', async () => {
    const admin = await createTestUser(s, { admin: true });
    const u = await createTestUser(s, { credits: 5 });
    const add = () =>
      admin.client.rpc('admin_add_credit', { p_user_id: u.id, p_amount: 12.5, p_note: 'Goodwill for the outage', p_idempotency_key: 'ticket-7' });
    expect((await add()).data).toBe(17.5);
    expect((await add()).data).toBe(17.5);
    const { data } = await u.client.from('credit_transactions').select('type, amount, description').eq('type', 'admin_credit').order('created_at');
    expect(data).toEqual([
      { type: 'admin_credit', amount: 5, description: 'Test credit' },
      { type: 'admin_credit', amount: 12.5, description: 'Goodwill for the outage' },
    ]);
    const bad = await admin.client.rpc('admin_add_credit', { p_user_id: u.id, p_amount: -3, p_note: 'x' });
    expect(bad.error?.message).toBe('The amount must be a positive number of dollars with at most two decimals');
    const noNote = await admin.client.rpc('admin_add_credit', { p_user_id: u.id, p_amount: 3, p_note: ' ' });
    expect(noNote.error?.message).toBe('A note of 1 to 500 characters is required');
    expect(await ledger(u.id)).toEqual({ balance: '17.50', n: 2 });
  });

  it('is refused to everyone else, and changes nothing', async () => {
    const u = await createTestUser(s, { credits: 5 });
    const self = await u.client.rpc('admin_add_credit', { p_user_id: u.id, p_amount: 100, p_note: 'Free money' });
    expect({ status: self.status, code: self.error?.code }).toEqual({ status: 403, code: '42501' });
    const anon = await s.client().rpc('admin_add_credit', { p_user_id: u.id, p_amount: 100, p_note: 'Free money' });
    expect(anon.status).toBe(401);
    expect(await ledger(u.id)).toEqual({ balance: '5.00', n: 1 });
  });
});
