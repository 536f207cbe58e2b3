import type { SupabaseClient } from '@supabase/supabase-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectLedgerBalanced, postDated } from '../helpers/ledger';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, type TestUser } from '../helpers/users';

// Billing › Transactions reads credit_transactions through /rest/v1 as the web app does
// (features/billing/api/get-ledger-page.ts): filters, order, range and an exact count, under RLS.

const COLUMNS = 'id, type, description, amount, created_at, service_id';
const day = (d: number) => `2026-02-${String(d).padStart(2, '0')}T12:00:00Z`;

let s: TestServer;
let owner: TestUser;
let other: TestUser;

beforeAll(async () => {
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
  owner = await createTestUser(s);
  other = await createTestUser(s, { credits: 7 });
  // 30 rows, one a day from 1 February: a purchase, then charges, and a refund every fifth day.
  await postDated(
    s.deps.db,
    owner.id,
    Array.from({ length: 30 }, (_, i) => ({
      type: i === 0 ? 'purchase' : i % 5 === 0 ? 'refund' : 'service_charge',
      amount: i === 0 ? 100 : i % 5 === 0 ? 1 : -2,
      description: `Row ${i + 1}`,
      at: i < 28 ? day(i + 1) : `2026-03-0${i - 27}T12:00:00Z`,
    })),
  );
});
afterEach(() => expectLedgerBalanced(s.deps.db));
afterAll(() => s?.stop());

function page(client: SupabaseClient, userId: string, from: number, to: number) {
  return client
    .from('credit_transactions')
    .select(COLUMNS, { count: 'exact' })
    .eq('user_id', userId)
    .order('created_at', { ascending: false })
    .order('id', { ascending: false })
    .range(from, to);
}

describe('the owner', () => {
  it('reads the whole ledger in pages, newest first, with how many rows there are', async () => {
    const first = await page(owner.client, owner.id, 0, 24);
    expect(first.error).toBeNull();
    expect(first.count).toBe(30);
    expect(first.data!.map((r) => r.description)).toEqual(Array.from({ length: 25 }, (_, i) => `Row ${30 - i}`));
    const second = await page(owner.client, owner.id, 25, 49);
    expect(second.count).toBe(30);
    expect(second.data!.map((r) => r.description)).toEqual(['Row 5', 'Row 4', 'Row 3', 'Row 2', 'Row 1']);
    expect(second.data![4]).toMatchObject({ type: 'purchase', amount: 100, service_id: null, created_at: expect.stringMatching(/^2026-02-01T12:00:00/) });
  });

  it('filters by type and by a range of dates, from included and to excluded', async () => {
    const refunds = await page(owner.client, owner.id, 0, 24).eq('type', 'refund');
    expect(refunds.count).toBe(5);
    expect(refunds.data!.every((r) => r.type === 'refund')).toBe(true);
    const february = await page(owner.client, owner.id, 0, 24).gte('created_at', '2026-02-10T00:00:00Z').lt('created_at', '2026-02-13T00:00:00Z');
    expect(february.data!.map((r) => r.description)).toEqual(['Row 12', 'Row 11', 'Row 10']);
    const both = await page(owner.client, owner.id, 0, 24).eq('type', 'service_charge').gte('created_at', '2026-03-01T00:00:00Z');
    expect(both.data!.map((r) => r.description)).toEqual(['Row 30', 'Row 29']);
    const none = await page(owner.client, owner.id, 0, 24).gte('created_at', '2027-01-01T00:00:00Z');
    expect(none).toMatchObject({ error: null, data: [], count: 0 });
  });

  it("has a balance that is the ledger's sum", async () => {
    const { data } = await owner.client.from('user_credits').select('balance').eq('user_id', owner.id).single();
    // 100 - 24 charges of 2 + 5 refunds of 1.
    expect(Number(data!.balance)).toBe(57);
  });
  it('answers a page past the last 416 PGRST103, and the count alone when asked for it', async () => {
    const past = await page(owner.client, owner.id, 200, 224);
    expect(past).toMatchObject({ data: null, status: 416, error: { code: 'PGRST103' } });
    const counted = await owner.client.from('credit_transactions').select(COLUMNS, { count: 'exact', head: true }).eq('user_id', owner.id).eq('type', 'refund');
    expect(counted).toMatchObject({ error: null, count: 5 });
  });
});

describe('anyone else', () => {
  it("never reads another user's rows, asked for by id or not", async () => {
    const byId = await page(other.client, owner.id, 0, 24);
    expect(byId).toMatchObject({ error: null, data: [], count: 0 });
    const all = await other.client.from('credit_transactions').select(COLUMNS, { count: 'exact' });
    expect(all.count).toBe(1);
    expect(all.data).toEqual([expect.objectContaining({ type: 'admin_credit', amount: 7 })]);
    const filtered = await other.client.from('credit_transactions').select('id').eq('type', 'refund');
    expect(filtered.data).toEqual([]);
  });

  it('reads nothing without signing in', async () => {
    const anon = await page(s.client(), owner.id, 0, 24);
    expect(anon).toMatchObject({ error: null, data: [], count: 0 });
    const all = await s.client().from('credit_transactions').select(COLUMNS, { count: 'exact' });
    expect(all).toMatchObject({ error: null, data: [], count: 0 });
  });
});
