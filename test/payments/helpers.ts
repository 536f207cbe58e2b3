import type { SupabaseClient } from '@supabase/supabase-js';
import { PAYMENT_MISMATCH_SUBJECT } from '../../src/shared/payment-mismatch';
import { invokeFunction } from '../helpers/functions';
import type { TestServer } from '../helpers/server';

/** purchase-credits as the dashboard calls it. */
export const purchase = (client: SupabaseClient, body: unknown) => invokeFunction(client, 'purchase-credits', body);

/** A GET or form POST the way a browser makes it, without following the redirect. */
export async function visit(url: string, form?: Record<string, string>): Promise<{ status: number; location: string | null; text: string }> {
  const res = await fetch(url, {
    redirect: 'manual',
    ...(form ? { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() } : {}),
  });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}

/** The caller's balance, read through supabase-js and RLS like the Billing page. */
export async function balance(client: SupabaseClient): Promise<string> {
  const { data, error } = await client.from('user_credits').select('balance').single();
  if (error) throw error;
  return String((data as { balance: number | string }).balance);
}

export async function purchaseLedger(s: TestServer, userId: string) {
  const { rows } = await s.deps.db.query<{ amount: string; description: string; idempotency_key: string }>(
    `select amount, description, idempotency_key from public.credit_transactions where user_id = $1 and type = 'purchase'`,
    [userId],
  );
  return rows;
}

export async function purchaseRow(s: TestServer, id: string) {
  const { rows } = await s.deps.db.query<{ status: string; provider: string; provider_order_id: string | null; amount: string; user_id: string }>(
    'select status, provider, provider_order_id, amount, user_id from public.credit_purchases where id = $1',
    [id],
  );
  return rows[0];
}

/** Makes a purchase look `seconds` old, as reconciliation would find it later. */
export async function age(s: TestServer, id: string, seconds: number): Promise<void> {
  await s.deps.db.query(`update public.credit_purchases set created_at = now() - make_interval(secs => $2) where id = $1`, [id, seconds]);
}

/**
 * A completed purchase of `amount` through the built-in test provider, as a buyer makes it:
 * started, approved on the test page, and captured when the page sends the browser back.
 */
export async function paidWithTestProvider(user: { id: string; client: SupabaseClient }, amount: number): Promise<string> {
  const r = await purchase(user.client, { amount, credits_amount: amount, user_id: user.id });
  if (r.status !== 200) throw new Error(`purchase-credits answered ${r.status}: ${JSON.stringify(r.body)}`);
  await visit((await visit(r.body.approval_url as string, { decision: 'approve' })).location!);
  return r.body.purchase_id as string;
}

/** The audit log's entries for payments of `userId` that did not match their order, oldest first. */
export async function mismatchAudit(s: TestServer, userId: string) {
  const { rows } = await s.deps.db.query<{ actor: string; target_label: string | null; before: unknown; after: unknown }>(
    `select actor, target_label, before, after from private.admin_audit_log where action = 'purchase.payment_mismatch' and target_id = $1 order by id`,
    [userId],
  );
  return rows;
}

/** The alerts mailed to `to` about the provider's capture or refund `reference`. */
export async function mismatchAlerts(s: TestServer, to: string, reference: string) {
  const { rows } = await s.deps.db.query<{ subject: string; text_body: string }>(
    `select subject, text_body from nodeharbor.outbox where to_address = $1 and subject = $2 and strpos(text_body, $3) > 0 order by id`,
    [to, PAYMENT_MISMATCH_SUBJECT, reference],
  );
  return rows;
}

/**
 * Delivers a webhook `times` at once, as PayPal may, and resolves with the status each delivery
 * ended with. A delivery refused as busy (429 or 503 with Retry-After: one address's fair share of
 * the database, or its pool, waited out on a loaded machine) is delivered again, one at a time
 * after the burst, as PayPal redelivers what was not answered 2xx; any other refusal is its answer.
 */
export async function deliverAtOnce(deliver: () => Promise<Response>, times: number): Promise<number[]> {
  const first = await Promise.all(Array.from({ length: times }, deliver));
  const busy = (r: Response) => (r.status === 429 || r.status === 503) && r.headers.has('retry-after');
  const ended: number[] = [];
  for (let answer of first) {
    for (let again = 0; busy(answer) && again < 5; again++) answer = await deliver();
    ended.push(answer.status);
  }
  return ended;
}
