import type { SupabaseClient } from '@supabase/supabase-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { signInAal1, verifyNewFactor } from '../helpers/mfa';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, GALA_KEY, TOWN_STAR, type TestUser } from '../helpers/users';
import { expectLedgerBalanced } from '../helpers/ledger';

type Actor = 'anon' | 'userA' | 'userAaal1' | 'userB' | 'admin';
type Op = 'select' | 'insert' | 'update' | 'delete';
const ACTORS: Actor[] = ['anon', 'userA', 'userAaal1', 'userB', 'admin'];
const OPS: Op[] = ['select', 'insert', 'update', 'delete'];

/**
 * The intended matrix: who may do what to the row that belongs to user A (for products, a plan;
 * for admin_users, the admin's own row). Everything not listed is refused. Money, services and
 * memberships are written only by SECURITY DEFINER functions, so no actor writes them directly.
 * User A has a verified second factor: `userA` is their aal2 session, `userAaal1` a session that
 * has passed the password only, which reaches nothing at all (issue 15).
 */
const allowed: Record<string, Partial<Record<Op, Actor[]>>> = {
  products: { select: ['anon', 'userA', 'userB', 'admin'] },
  profiles: { select: ['userA'], update: ['userA'] },
  user_credits: { select: ['userA'] },
  credit_transactions: { select: ['userA'] },
  credit_purchases: { select: ['userA'] },
  billing_documents: { select: ['userA'] },
  // The admin's reason is an internal note: customers learn of a refund from its credit note.
  credit_refunds: {},
  services: { select: ['userA'] },
  service_uptime: { select: ['userA'] },
  // Whether the node was stopped on request (migration 0047): written only by service_power_action.
  service_power: { select: ['userA'] },
  contact_messages: { select: ['admin'] },
  admin_users: { select: ['admin'] },
  dev_access_users: { select: ['userA'] },
};

let s: TestServer;
let a: TestUser;
let b: TestUser;
let admin: TestUser;
let clients: Record<Actor, SupabaseClient>;
const target: Record<string, Record<string, string>> = {};
const insertRow: Record<string, () => Record<string, unknown>> = {};
const updateRow: Record<string, Record<string, unknown>> = {};

beforeAll(async () => {
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
  a = await createTestUser(s, { credits: 20, devAccess: true });
  b = await createTestUser(s, { credits: 20 });
  admin = await createTestUser(s, { admin: true });
  await verifyNewFactor(a);
  clients = { anon: s.client(), userA: a.client, userAaal1: await signInAal1(s, a), userB: b.client, admin: admin.client };
  const svc = await a.client.rpc('create_service_securely', { p_name: 'matrix', p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR });
  const { rows: tx } = await s.deps.db.query<{ id: string }>('select id from public.credit_transactions where user_id = $1 limit 1', [a.id]);
  // One day of uptime, as the node monitor writes it (issue 16).
  await s.deps.db.query('insert into private.node_uptime (service_id, day, seconds_online, seconds_observed) values ($1, current_date, 60, 60)', [
    (svc.data as { id: string }).id,
  ]);
  const { rows: purchase } = await s.deps.db.query<{ id: string }>(
    `insert into public.credit_purchases (user_id, amount, provider, provider_order_id) values ($1, 10, 'test', 'order-1') returning id`,
    [a.id],
  );
  const { rows: document } = await s.deps.db.query<{ id: string }>(
    `insert into public.billing_documents (number, kind, user_id, purchase_id, amount, provider, seller)
     values ('NH-1999-000001', 'receipt', $1, $2, 10, 'test', '{}') returning id`,
    [a.id, purchase[0]!.id],
  );
  const { rows: refund } = await s.deps.db.query<{ id: string }>(
    `insert into public.credit_refunds (purchase_id, user_id, amount, kind, reason) values ($1, $2, 1, 'refund', 'Internal note') returning id`,
    [purchase[0]!.id, a.id],
  );
  const { rows: message } = await s.deps.db.query<{ id: string }>(
    `insert into public.contact_messages (name, email, topic, message) values ('Ann', 'ann@x.test', 'sales', 'Hello there, world') returning id`,
  );
  Object.assign(target, {
    products: { id: TOWN_STAR },
    profiles: { id: a.id },
    user_credits: { user_id: a.id },
    credit_transactions: { id: tx[0]!.id },
    credit_purchases: { id: purchase[0]!.id },
    billing_documents: { id: document[0]!.id },
    credit_refunds: { id: refund[0]!.id },
    services: { id: (svc.data as { id: string }).id },
    service_uptime: { service_id: (svc.data as { id: string }).id },
    service_power: { service_id: (svc.data as { id: string }).id },
    contact_messages: { id: message[0]!.id },
    admin_users: { user_id: admin.id },
    dev_access_users: { user_id: a.id },
  });
  // Rows that would be valid if the actor were allowed to write them.
  Object.assign(insertRow, {
    products: () => ({ name: 'Pirate plan', price: 0 }),
    profiles: () => ({ id: b.id, full_name: 'Forged' }),
    user_credits: () => ({ user_id: b.id, balance: 1000 }),
    credit_transactions: () => ({ user_id: b.id, type: 'purchase', description: 'Forged', amount: 1000, idempotency_key: crypto.randomUUID() }),
    credit_purchases: () => ({ user_id: b.id, amount: 10, provider: 'test' }),
    billing_documents: () => ({
      number: 'NH-1999-000002',
      kind: 'receipt',
      user_id: b.id,
      purchase_id: purchase[0]!.id,
      amount: 10,
      provider: 'test',
      seller: {},
    }),
    credit_refunds: () => ({ purchase_id: purchase[0]!.id, user_id: b.id, amount: 1, kind: 'refund' }),
    services: () => ({ user_id: b.id, name: 'forged', product_id: TOWN_STAR }),
    // Its own columns only: a computed one is refused (0A000) before the grant is looked at.
    service_uptime: () => ({ service_id: (svc.data as { id: string }).id, day: '2026-01-01' }),
    service_power: () => ({ service_id: (svc.data as { id: string }).id, stopped_at: new Date().toISOString() }),
    contact_messages: () => ({ name: 'Bob', email: 'bob@x.test', topic: 'support', message: 'Forged message text' }),
    admin_users: () => ({ user_id: b.id }),
    dev_access_users: () => ({ user_id: b.id }),
  });
  Object.assign(updateRow, {
    products: { price: 0 },
    profiles: { full_name: 'Changed' },
    user_credits: { balance: 1000 },
    credit_transactions: { amount: 1000 },
    credit_purchases: { status: 'completed' },
    billing_documents: { amount: 1 },
    credit_refunds: { status: 'completed' },
    services: { state: 'active' },
    service_uptime: { day: '2026-01-02' },
    service_power: { stopped_at: new Date().toISOString() },
    contact_messages: { message: 'Changed message text' },
    admin_users: { created_at: new Date().toISOString() },
    dev_access_users: { created_at: new Date().toISOString() },
  });
});
// Money moves here: every balance stays its ledger's sum.
afterEach(() => expectLedgerBalanced(s.deps.db));
afterAll(() => s.stop());

/** Whether the actor was allowed: the row came back (select/update/delete), or the insert was not refused. */
async function attempt(c: SupabaseClient, table: string, op: Op): Promise<boolean> {
  const match = target[table]!;
  if (op === 'select') {
    const { data } = await c.from(table).select('*').match(match);
    return (data?.length ?? 0) === 1;
  }
  if (op === 'insert') {
    const { error, status } = await c.from(table).insert(insertRow[table]!());
    // Refused means a permission error (42501: no grant, or the row-level policy said no).
    return !(error && (error.code === '42501' || status === 401 || status === 403));
  }
  const q = op === 'update' ? c.from(table).update(updateRow[table]!).match(match) : c.from(table).delete().match(match);
  const { data } = await q.select();
  return (data?.length ?? 0) === 1;
}

describe('row-level security matrix', () => {
  for (const table of Object.keys(allowed)) {
    it(`${table}: exactly the intended actors may select, insert, update, delete`, async () => {
      const got: Record<string, Actor[]> = {};
      const want: Record<string, Actor[]> = {};
      // Deletes last: an allowed one would remove the row the other checks look at.
      for (const op of OPS) {
        got[op] = [];
        want[op] = allowed[table]![op] ?? [];
        for (const actor of ACTORS) if (await attempt(clients[actor], table, op)) got[op].push(actor);
      }
      expect(got).toEqual(want);
    });
  }

  it('holds through embedding: an embedded table shows each actor only what its own policies do', async () => {
    const { rows: service } = await s.deps.db.query<{ id: string }>('select id from private.services where user_id = $1', [a.id]);
    const embedded = async (actor: Actor) => {
      const products = await clients[actor].from('products').select('id, services(id)').eq('id', TOWN_STAR);
      const purchases = await clients[actor].from('credit_purchases').select('id, credit_refunds(id)');
      return { products: products.error?.code ?? products.data, purchases: purchases.error?.code ?? purchases.data?.map((p) => p.credit_refunds) };
    };
    const got = Object.fromEntries(await Promise.all(ACTORS.map(async (actor) => [actor, await embedded(actor)])));
    // A table the caller may not read refuses the whole request, embedded or not: anon may not read
    // services, and no one signed in may read credit_refunds (an internal note: credit_refunds: {}
    // above). Anon's purchases are none by a policy that is false, which PostgreSQL plans away.
    expect(got).toEqual({
      anon: { products: '42501', purchases: [] },
      userA: { products: [{ id: TOWN_STAR, services: [{ id: service[0]!.id }] }], purchases: '42501' },
      userAaal1: { products: [], purchases: '42501' },
      userB: { products: [{ id: TOWN_STAR, services: [] }], purchases: '42501' },
      admin: { products: [{ id: TOWN_STAR, services: [] }], purchases: '42501' },
    });
    // From the other side: user B embedding user A's rows through a row of their own gets none.
    const { data: own } = await b.client.from('services').select('id, products(id)');
    expect(own).toEqual([]);
    const { data: theirs } = await a.client.from('services').select('id, products(id)');
    expect(theirs).toEqual([{ id: service[0]!.id, products: { id: TOWN_STAR } }]);
  });

  it('shows an inactive product to admins only', async () => {
    const { rows } = await s.deps.db.query<{ id: string }>(
      `insert into public.products (name, price, is_active) values ('Retired plan', 5, false) returning id`,
    );
    const sees = async (actor: Actor) => ((await clients[actor].from('products').select('id').eq('id', rows[0]!.id)).data ?? []).length === 1;
    expect(Object.fromEntries(await Promise.all(ACTORS.map(async (actor) => [actor, await sees(actor)])))).toEqual({
      anon: false,
      userA: false,
      userAaal1: false,
      userB: false,
      admin: true,
    });
    await s.deps.db.query('delete from public.products where id = $1', [rows[0]!.id]);
  });

  it('leaves the aal1 session what GoTrue allows: its user, its factors, stepping up and signing out', async () => {
    const c = clients.userAaal1;
    expect((await c.auth.getUser()).data.user?.id).toBe(a.id);
    const factors = await c.auth.mfa.listFactors();
    expect(factors.data?.totp.map((f) => f.status)).toEqual(['verified']);
    expect((await c.auth.mfa.challenge({ factorId: factors.data!.totp[0]!.id })).error).toBeNull();
    expect((await c.auth.signOut({ scope: 'local' })).error).toBeNull();
  });

  it('left the money and the services as they were', async () => {
    const { rows } = await s.deps.db.query<{ balance: string }>('select balance from public.user_credits where user_id = $1', [b.id]);
    expect(rows[0]!.balance).toBe('20.00');
    const { rows: admins } = await s.deps.db.query('select user_id from public.admin_users');
    expect(admins).toEqual([{ user_id: admin.id }]);
    const { rows: forged } = await s.deps.db.query(`select 1 from private.services where name = 'forged'`);
    expect(forged).toEqual([]);
  });
});
