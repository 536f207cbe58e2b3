import { request as httpRequest } from 'node:http';
import type { FunctionsHttpError } from '@supabase/supabase-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { withClaims } from '../../src/server/db/with-claims';
import { schedules } from '../../src/server/jobs/registry';
import { startWorker } from '../../src/server/jobs/worker';
import { reconcilePendingPurchases } from '../../src/server/payments/reconcile';
import { createJobDeps } from '../../src/server/jobs/app-worker';
import { messages } from '../../src/shared/validation';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, type TestUser } from '../helpers/users';
import { age, balance, purchase, purchaseLedger, purchaseRow, visit } from './helpers';
import { expectLedgerBalanced } from '../helpers/ledger';
import { readUntil } from '../helpers/wait';

describe('purchase-credits with the built-in test provider', () => {
  let s: TestServer;
  let user: TestUser;
  beforeAll(async () => {
    s = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
    user = await createTestUser(s);
  });
  afterEach(() => expectLedgerBalanced(s.deps.db));
  afterAll(() => s.stop());

  async function start(amount: number) {
    const r = await purchase(user.client, { amount, credits_amount: amount, user_id: user.id });
    expect(r.status).toBe(200);
    return r.body as { approval_url: string; purchase_id: string };
  }

  it('Approve on the test page credits the balance once and completes the purchase', async () => {
    const before = Number(await balance(user.client));
    const { approval_url, purchase_id } = await start(12.5);
    expect(approval_url).toMatch(new RegExp(`^${s.url}/payments/test/approve/TEST-`));
    expect(await purchaseRow(s, purchase_id)).toMatchObject({ status: 'pending', provider: 'test', amount: '12.50', user_id: user.id });

    const page = await visit(approval_url);
    expect(page.status).toBe(200);
    expect(page.text).toContain('TEST PAYMENT');
    expect(page.text).toContain('Approve a TEST payment of $12.50?');
    expect(page.text).toMatch(/<form method="post" action="\/payments\/test\/approve\/TEST-[0-9a-f-]+">/);
    expect(page.text).not.toContain('<script');

    const approved = await visit(approval_url, { decision: 'approve' });
    expect(approved.status).toBe(303);
    expect(approved.location).toContain(`/payments/return?purchase=${purchase_id}`);
    const back = await visit(approved.location!);
    expect(back).toMatchObject({ status: 303, location: `/dashboard/billing?payment=success&purchase=${purchase_id}` });

    expect(Number(await balance(user.client))).toBe(before + 12.5);
    const row = await purchaseRow(s, purchase_id);
    expect(row!.status).toBe('completed');
    expect(await purchaseLedger(s, user.id)).toEqual([
      { amount: '12.50', description: 'Credit purchase (test payment)', idempotency_key: row!.provider_order_id },
    ]);

    // The browser reloads the return URL: still one credit.
    expect((await visit(approved.location!)).location).toBe(`/dashboard/billing?payment=success&purchase=${purchase_id}`);
    expect(await purchaseLedger(s, user.id)).toHaveLength(1);
    expect(Number(await balance(user.client))).toBe(before + 12.5);

    const { rows: mail } = await s.deps.db.query<{ subject: string; text_body: string }>(
      'select subject, text_body from nodeharbor.outbox where to_address = $1',
      [user.email],
    );
    // The receipt of a test payment says that no money was taken.
    expect(mail).toEqual([
      {
        subject: '[TEST] We received your payment of $12.50',
        text_body: expect.stringMatching(/^TEST payment — no money was taken\.[^]*Your balance is now \$/) as string,
      },
    ]);
  });

  it('Reject on the test page records the purchase as rejected and credits nothing', async () => {
    const before = await balance(user.client);
    const ledgerBefore = (await purchaseLedger(s, user.id)).length;
    const { approval_url, purchase_id } = await start(5);
    const rejected = await visit(approval_url, { decision: 'reject' });
    expect(rejected.status).toBe(303);
    expect(rejected.location).toContain('cancelled=1');
    expect(await visit(rejected.location!)).toMatchObject({ status: 303, location: '/dashboard/billing?payment=cancelled' });
    expect((await purchaseRow(s, purchase_id))!.status).toBe('rejected');
    expect(await balance(user.client)).toBe(before);
    expect(await purchaseLedger(s, user.id)).toHaveLength(ledgerBefore);

    // Approving afterwards changes nothing.
    expect((await visit(approval_url)).text).toContain('already rejected');
    const late = await visit(approval_url, { decision: 'approve' });
    expect((await visit(late.location!)).location).toBe('/dashboard/billing?payment=cancelled');
    expect(await balance(user.client)).toBe(before);
  });

  it('lets no one but the buyer coming back from the provider cancel a purchase', async () => {
    const { approval_url, purchase_id } = await start(3);
    const orderId = approval_url.split('/').at(-1)!;
    // Someone who learnt the purchase id, without the provider's token for its order, or with another.
    for (const query of [`purchase=${purchase_id}&cancelled=1`, `purchase=${purchase_id}&cancelled=1&token=TEST-other`]) {
      expect((await visit(`${s.url}/payments/return?${query}`)).location).toBe('/dashboard/billing?payment=cancelled');
      expect((await purchaseRow(s, purchase_id))!.status).toBe('pending');
    }
    // The buyer can still approve it, and it is credited.
    const approved = await visit(approval_url, { decision: 'approve' });
    expect(approved.location).toContain(`token=${orderId}`);
    expect((await visit(approved.location!)).location).toBe(`/dashboard/billing?payment=success&purchase=${purchase_id}`);
    expect((await purchaseRow(s, purchase_id))!.status).toBe('completed');
  });

  it('sends the buyer only to its own address, whatever Host or X-Forwarded-Host the request names (PUBLIC_URL unset)', async () => {
    // fetch() keeps the Host header to itself: node:http sends what an attacker would.
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        `${s.url}/functions/v1/purchase-credits`,
        {
          method: 'POST',
          headers: {
            Host: 'evil.example',
            'X-Forwarded-Host': 'evil.example',
            'X-Forwarded-Proto': 'https',
            apikey: s.anonKey,
            Authorization: `Bearer ${user.token}`,
            'Content-Type': 'application/json',
          },
        },
        (res) => {
          let body = '';
          res.on('data', (d: Buffer) => (body += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ amount: 2, credits_amount: 2 }));
    });
    expect(answer.status).toBe(200);
    const { approval_url } = JSON.parse(answer.body) as { approval_url: string };
    expect(approval_url.startsWith(`${s.url}/payments/test/approve/`)).toBe(true);
    const orderId = approval_url.split('/').at(-1)!;
    const { rows } = await s.deps.db.query<{ return_url: string; cancel_url: string }>(
      'select return_url, cancel_url from nodeharbor.test_payment_orders where id = $1',
      [orderId],
    );
    expect(rows[0]!.return_url.startsWith(`${s.url}/payments/return?`)).toBe(true);
    expect(rows[0]!.cancel_url.startsWith(`${s.url}/payments/return?`)).toBe(true);
    for (const decision of ['approve', 'reject']) {
      expect((await visit(approval_url, { decision })).location!.startsWith(`${s.url}/payments/return?`)).toBe(true);
    }
  });

  it('escapes the test page and refuses unknown orders and decisions', async () => {
    expect((await visit(`${s.url}/payments/test/approve/%3Cscript%3E`)).status).toBe(404);
    const { approval_url } = await start(1);
    expect((await visit(approval_url, { decision: 'maybe' })).status).toBe(400);
    expect((await visit(`${s.url}/payments/return?purchase=not-a-uuid`)).location).toBe('/dashboard/billing?payment=failed');
  });

  it.each<[string, Record<string, unknown>, number, string]>([
    ['below the minimum', { amount: 0.99, credits_amount: 0.99 }, 400, messages.topUpMin],
    ['zero', { amount: 0, credits_amount: 0 }, 400, messages.topUpMin],
    ['not a number', { amount: 'ten', credits_amount: 'ten' }, 400, messages.topUpAmount],
    ['missing', {}, 400, messages.topUpAmount],
    ['more than 2 decimals', { amount: 10.001, credits_amount: 10.001 }, 400, messages.topUpAmount],
    ['above the maximum', { amount: 10_000.01, credits_amount: 10_000.01 }, 400, messages.topUpMax],
    ['amount and credits disagree', { amount: 10, credits_amount: 12 }, 400, messages.topUpMismatch],
    ['for another user', { amount: 10, credits_amount: 10, user_id: '00000000-0000-4000-8000-0000000000aa' }, 403, messages.purchaseForOther],
  ])('%s: %i with the message, no purchase', async (_, body, status, message) => {
    const count = async () =>
      (await s.deps.db.query<{ n: number }>('select count(*)::int as n from public.credit_purchases where user_id = $1', [user.id])).rows[0]!.n;
    const before = await count();
    expect(await purchase(user.client, body)).toMatchObject({ status, body: { error: message } });
    expect(await count()).toBe(before);
  });

  it('answers "User not authenticated" without a signed-in caller, and refuses a body that is not JSON', async () => {
    expect(await purchase(s.client(), { amount: 10, credits_amount: 10 })).toEqual({
      status: 401,
      body: { error: messages.notAuthenticated },
    });
    const r = await fetch(`${s.url}/functions/v1/purchase-credits`, {
      method: 'POST',
      headers: { apikey: s.anonKey, Authorization: `Bearer ${user.token}`, 'Content-Type': 'application/json' },
      body: '{"amount":',
    });
    expect(r.status).toBe(400);
    expect(await r.json()).toEqual({ error: 'Invalid JSON body' });
  });

  it('buys for the caller when user_id is left out', async () => {
    const r = await purchase(user.client, { amount: 3, credits_amount: 3 });
    expect(r.status).toBe(200);
    expect((await purchaseRow(s, r.body.purchase_id as string))!.user_id).toBe(user.id);
  });

  it('the SQL that starts a purchase keeps the same rules and messages, and the caller as owner', async () => {
    const begin = (claims: Record<string, unknown>, amount: string) =>
      withClaims(s.deps.db, { role: 'authenticated', claims }, (tx) => tx.query('select private.begin_credit_purchase($1, $2)', [amount, 'test']));
    const me = { sub: user.id, role: 'authenticated' };
    await expect(begin({}, '10')).rejects.toThrow(messages.notAuthenticated);
    await expect(begin(me, '0.99')).rejects.toThrow(messages.topUpMin);
    await expect(begin(me, '10.001')).rejects.toThrow(messages.topUpAmount);
    await expect(begin(me, '10000.01')).rejects.toThrow(messages.topUpMax);
    const { rows } = await begin(me, '10000');
    const id = (rows[0] as { begin_credit_purchase: string }).begin_credit_purchase;
    expect((await purchaseRow(s, id))!.user_id).toBe(user.id);
  });

  it('the API roles cannot start or settle a purchase themselves', async () => {
    const direct = await user.client.from('credit_purchases').insert({ user_id: user.id, amount: 10, provider: 'test' });
    expect(direct.error).not.toBeNull();
    const rpc = await user.client.rpc('complete_purchase', { p_order_id: 'x', p_currency: 'USD', p_value: '1.00' });
    expect(rpc.error).not.toBeNull();
    // Nor book a refund, issue a document or take a number: only begin_refund, which checks for an admin.
    const { rows } = await s.deps.db.query<{ fn: string; role: string }>(
      `select f.fn, r.role from unnest(array['private.complete_purchase(text, text, text, text, jsonb, boolean, text)',
                                             'private.refundable(uuid)',
                                             'private.book_refund(uuid, uuid, text, text, text, text, jsonb)',
                                             'private.record_payment_mismatch(public.credit_purchases, text, text, text, text, text, numeric)',
                                             'private.provider_dollars(text, text)',
                                             'private.reported_money(text, text)',
                                             'private.fail_refund(uuid, text)',
                                             'private.issue_document(text, public.credit_purchases, uuid, text, numeric, text, jsonb, timestamptz)',
                                             'private.next_document_number(text, timestamptz)',
                                             'private.post_transaction(uuid, numeric, text, text, uuid, text, boolean)']) as f (fn),
              unnest(array['anon', 'authenticated', 'service_role']) as r (role)
        where has_function_privilege(r.role, f.fn, 'execute')`,
    );
    expect(rows).toEqual([]);
  });

  it('reconciliation credits an approved order the browser never came back for, and expires stale ones', async () => {
    const before = Number(await balance(user.client));
    const approved = await start(7);
    await visit(approved.approval_url, { decision: 'approve' });
    const abandoned = await start(8);

    // Too young: left to the browser.
    await reconcilePendingPurchases(s.deps);
    expect((await purchaseRow(s, approved.purchase_id))!.status).toBe('pending');

    await age(s, approved.purchase_id, 31);
    await age(s, abandoned.purchase_id, 31);
    await reconcilePendingPurchases(s.deps);
    expect((await purchaseRow(s, approved.purchase_id))!.status).toBe('completed');
    expect((await purchaseRow(s, abandoned.purchase_id))!.status).toBe('pending');
    expect(Number(await balance(user.client))).toBe(before + 7);

    await age(s, abandoned.purchase_id, 48 * 3600 + 1);
    await reconcilePendingPurchases(s.deps);
    expect((await purchaseRow(s, abandoned.purchase_id))!.status).toBe('expired');
    expect(Number(await balance(user.client))).toBe(before + 7);
  });

  it('the worker reconciles on its own every 30 s, so a payment approved without the browser is credited within 120 s', async () => {
    expect(schedules(60, 30)).toContainEqual({ task: 'reconcile-purchases', everySeconds: 30 });
    const before = Number(await balance(user.client));
    const order = await start(9);
    await visit(order.approval_url, { decision: 'approve' });
    await age(s, order.purchase_id, 31);
    const worker = startWorker(await createJobDeps(s.deps), {
      concurrency: { nodes: 1, upkeep: 1 },
      pollMs: 50,
      leaseSeconds: 30,
      schedules: schedules(60, 30).filter((x) => x.task === 'reconcile-purchases'),
    });
    try {
      await readUntil(
        () => purchaseRow(s, order.purchase_id),
        (row) => row!.status === 'completed',
        10_000,
        100,
      );
    } finally {
      await worker.stop();
    }
    expect((await purchaseRow(s, order.purchase_id))!.status).toBe('completed');
    expect(Number(await balance(user.client))).toBe(before + 9);
  });
});

describe('purchase-credits when the receipt cannot be sent', () => {
  let s: TestServer;
  beforeAll(async () => {
    // Nothing listens on port 1: the SMTP relay refuses every "payment received" e-mail.
    s = await startTestServer({ RATE_LIMITS_ENABLED: 'false', SMTP_URL: 'smtp://127.0.0.1:1' });
  });
  afterEach(() => expectLedgerBalanced(s.deps.db));
  afterAll(() => s.stop());

  it('still credits the purchase and reports success; the receipt waits in the queue for the relay', async () => {
    const user = await createTestUser(s);
    const r = await purchase(user.client, { amount: 20, credits_amount: 20 });
    const approved = await visit(r.body.approval_url as string, { decision: 'approve' });
    expect((await visit(approved.location!)).location).toBe(`/dashboard/billing?payment=success&purchase=${r.body.purchase_id as string}`);
    expect(await balance(user.client)).toBe('20');
    expect((await purchaseRow(s, r.body.purchase_id as string))!.status).toBe('completed');
    const { rows } = await s.deps.db.query<{ status: string }>('select status from nodeharbor.outbox where to_address = $1', [user.email]);
    expect(rows).toEqual([{ status: 'queued' }]);
    const jobs = await s.deps.db.query<{ n: number }>(`select count(*)::int as n from nodeharbor.jobs where task = 'send-email' and status = 'pending'`);
    expect(jobs.rows[0]!.n).toBe(1);
  });
});

describe('purchase-credits rate limit', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterEach(() => expectLedgerBalanced(s.deps.db));
  afterAll(() => s.stop());

  it('opens at most 20 orders per user in ten minutes, then answers 429 with Retry-After', async () => {
    const user = await createTestUser(s);
    for (let i = 0; i < 20; i++) expect((await purchase(user.client, { amount: 1, credits_amount: 1 })).status).toBe(200);
    const { error } = await user.client.functions.invoke('purchase-credits', { body: { amount: 1, credits_amount: 1 } });
    const res = (error as FunctionsHttpError).context as Response;
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await res.json()) as { error: string }).error).toMatch(/^Too many payment attempts/);
  });
});
