import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { createUser } from '../../src/server/auth/users';
import { addCredits } from '../../src/server/domain/credits';
import { messages } from '../../src/shared/validation';
import { startLifecycleServer, waitFor } from '../lifecycle/helpers';
import { purchase } from '../payments/helpers';
import { createTestUser, GALA_KEY, TOWN_STAR, type TestUser } from '../helpers/users';
import { userClient } from '../rest/fixtures';
import { expectLedgerBalanced } from '../helpers/ledger';

let s: Awaited<ReturnType<typeof startLifecycleServer>>;
let admin: TestUser;
beforeAll(async () => {
  // Installs take 3 s, so a service created by a test is still installing when it asks.
  s = await startLifecycleServer({ PROVISION_INSTALL_SECONDS: '3', PAYMENT_PROVIDER: 'test' });
  admin = await createTestUser(s, { admin: true });
});
// Money moves here: every balance stays its ledger's sum.
afterEach(() => expectLedgerBalanced(s.deps.db));
afterAll(() => s.stop());

const deleteAccount = (u: TestUser, email: string | null) => u.client.rpc('delete_own_account', { p_email: email });

async function createInstalled(u: TestUser, name: string): Promise<string> {
  const { data, error } = await u.client.rpc('create_service_securely', { p_name: name, p_description: 'mine', p_api_key: GALA_KEY, p_product_id: TOWN_STAR });
  if (error) throw error;
  const id = (data as { id: string }).id;
  await waitFor('the installation', async () => {
    const { rows } = await s.deps.db.query<{ is_installed: boolean }>('select is_installed from private.service_rows where id = $1', [id]);
    return rows[0]!.is_installed;
  });
  return id;
}

const count = async (sql: string, params: unknown[]) => (await s.deps.db.query(sql, params)).rowCount;

it('refuses an anonymous caller', async () => {
  const { error, status } = await s.client().rpc('delete_own_account', { p_email: 'x@nodeharbor.test' });
  expect(status).toBe(401);
  expect(error?.message).toBe('You must be logged in');
});

it.each([null, '', 'someone-else@nodeharbor.test'])('refuses the e-mail %j and changes nothing', async (typed) => {
  const u = await createTestUser(s, { fullName: 'Ada Lovelace' });
  const { error, status } = await deleteAccount(u, typed);
  expect(status).toBe(400);
  expect(error?.message).toBe(messages.accountEmailMismatch);
  expect((await u.client.auth.getUser()).data.user?.email).toBe(u.email);
  expect((await u.client.from('profiles').select('full_name').single()).data).toEqual({ full_name: 'Ada Lovelace' });
});

it('refuses while a service is installing, and deletes nothing', async () => {
  const u = await createTestUser(s, { credits: 10 });
  const { error } = await u.client.rpc('create_service_securely', { p_name: 'node-busy', p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR });
  expect(error).toBeNull();
  const refused = await deleteAccount(u, u.email);
  expect(refused.error?.message).toBe(messages.accountServiceInstalling);
  expect((await u.client.auth.getUser()).data.user?.email).toBe(u.email);
});

it('removes the person and their nodes, keeps the ledger, and refuses the tokens still held', async () => {
  const u = await createTestUser(s, { credits: 30, fullName: 'Grace Hopper', devAccess: true });
  const serviceId = await createInstalled(u, 'node-1');
  const pending = await purchase(u.client, { amount: 5, credits_amount: 5 });
  expect(pending.status).toBe(200);
  await s.deps.db.query(`insert into public.contact_messages (name, email, topic, message) values ('Grace', $1, 'support', 'Hello there, my node...')`, [
    u.email.toUpperCase(),
  ]);
  const ledger = await count('select 1 from public.credit_transactions where user_id = $1', [u.id]);
  expect(ledger).toBe(2);
  const stale = u.token;
  const users = async () => {
    const { data } = await admin.client.rpc('get_user_stats', { p_search: null, p_limit: 500, p_offset: 0 });
    return data as { user_id: string; total_count: number }[];
  };
  const totalBefore = (await users())[0]!.total_count;

  // Typed as people type: other case, stray spaces.
  const { error } = await deleteAccount(u, `  ${u.email.toUpperCase()} `);
  expect(error).toBeNull();

  await waitFor('the node to go', async () => (await count('select 1 from nodeharbor.simulated_nodes where service_id = $1', [serviceId])) === 0);
  await waitFor(
    'the service to be deleted',
    async () => (await count(`select 1 from private.services where id = $1 and state = 'deleted'`, [serviceId])) === 1,
  );
  const {
    rows: [svc],
  } = await s.deps.db.query<{ state: string; description: string | null; key: string }>(
    `select state, description, extensions.pgp_sym_decrypt(api_key_encrypted, private.encryption_key()) as key from private.services where id = $1`,
    [serviceId],
  );
  expect(svc).toEqual({ state: 'deleted', description: null, key: '' });

  const {
    rows: [account],
  } = await s.deps.db.query('select email, encrypted_password, raw_user_meta_data, deleted_at is not null as deleted from auth.users where id = $1', [u.id]);
  expect(account).toEqual({ email: null, encrypted_password: null, raw_user_meta_data: {}, deleted: true });
  for (const table of ['public.profiles where id', 'public.dev_access_users where user_id', 'auth.sessions where user_id', 'auth.identities where user_id']) {
    expect(await count(`select 1 from ${table} = $1`, [u.id])).toBe(0);
  }
  expect(await count('select 1 from public.contact_messages where lower(email) = $1', [u.email])).toBe(0);
  expect(await count('select 1 from nodeharbor.outbox where to_address = $1', [u.email])).toBe(0);

  // What the law needs stays: every ledger row, the purchase (never capturable now) and the balance.
  expect(await count('select 1 from public.credit_transactions where user_id = $1', [u.id])).toBe(ledger);
  expect((await s.deps.db.query('select status from public.credit_purchases where user_id = $1', [u.id])).rows).toEqual([{ status: 'expired' }]);
  expect((await s.deps.db.query('select balance::text from public.user_credits where user_id = $1', [u.id])).rows).toEqual([{ balance: '20.00' }]);

  // The session is gone everywhere; the access token still in hand opens nothing that spends.
  expect((await s.client().auth.signInWithPassword({ email: u.email, password: u.password })).error?.message).toBe('Invalid login credentials');
  expect((await u.client.auth.getUser(stale)).error?.message).toBe('User from sub claim in JWT does not exist');
  const again = await u.client.rpc('create_service_securely', { p_name: 'node-2', p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR });
  // Its session ended with the account, so the token is refused before any function runs.
  const ended = { code: 'PGRST301', message: 'Session from session_id claim in JWT does not exist' };
  expect([again.status, again.error]).toEqual([401, expect.objectContaining(ended)]);
  expect((await purchase(u.client, { amount: 5, credits_amount: 5 })).status).toBe(401);
  expect((await deleteAccount(u, u.email)).error).toMatchObject(ended);
  // Every function that writes says the same: the deleted node is not brought back, nothing extended.
  const reactivated = await u.client.rpc('manage_service_operation', {
    p_service_id: serviceId,
    p_operation: 'reactivate',
    p_updates: { name: 'node-1', api_key: GALA_KEY },
  });
  expect(reactivated.error).toMatchObject(ended);
  const extended = await u.client.rpc('extend_service_expiration', { p_service_id: serviceId, p_product_id: TOWN_STAR, p_months: 1 });
  expect(extended.error).toMatchObject(ended);
  // A token that names no session (only the server could sign one) is refused by the functions themselves.
  const sessionless = await userClient(s, u.id);
  const revived = await sessionless.rpc('manage_service_operation', {
    p_service_id: serviceId,
    p_operation: 'reactivate',
    p_updates: { name: 'node-1', api_key: GALA_KEY },
  });
  expect(revived.error?.message).toBe('You must be logged in');
  const prolonged = await sessionless.rpc('extend_service_expiration', { p_service_id: serviceId, p_product_id: TOWN_STAR, p_months: 1 });
  expect(prolonged.error?.message).toBe('You must be logged in');
  expect((await s.deps.db.query('select state from private.services where id = $1', [serviceId])).rows).toEqual([{ state: 'deleted' }]);

  // Not a user any more: not listed, not creditable; the address is free for a new account.
  const listed = await users();
  expect(listed.map((r) => r.user_id)).not.toContain(u.id);
  expect(listed[0]!.total_count).toBe(totalBefore - 1);
  const searched = await admin.client.rpc('get_user_stats', { p_search: '@nodeharbor.test', p_limit: 500, p_offset: 0 });
  expect((searched.data as { total_count: number }[])[0]!.total_count).toBe(totalBefore - 1);
  expect((await admin.client.rpc('admin_add_credit', { p_user_id: u.id, p_amount: 5, p_note: 'goodwill' })).error?.message).toBe('No such user');
  await expect(addCredits(s.deps.db, u.id, 5, 'goodwill')).rejects.toThrow('No such user');
  expect((await createUser(s.deps.db, { email: u.email, password: 'correct-horse-battery' })).id).not.toBe(u.id);
});

it('removes the stopped node of a suspended service with the account, instead of waiting for its termination', async () => {
  const u = await createTestUser(s, { credits: 10 });
  const serviceId = await createInstalled(u, 'held');
  await s.deps.db.query(`update private.services set renews_at = now() - interval '1 minute' where id = $1`, [serviceId]);
  const { rows } = await s.deps.db.query<{ outcome: string }>('select private.renew_service($1, 14) as outcome', [serviceId]);
  expect(rows[0]!.outcome).toBe('suspended');
  expect((await deleteAccount(u, u.email)).error).toBeNull();
  await waitFor(
    'the service to be deleted',
    async () => (await count(`select 1 from private.services where id = $1 and state = 'deleted'`, [serviceId])) === 1,
  );
  expect(await count('select 1 from nodeharbor.simulated_nodes where service_id = $1', [serviceId])).toBe(0);
});
