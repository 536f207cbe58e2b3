import { isDbError, type Database, type Queryable } from '../db/database';
import { withClaims } from '../db/with-claims';
import type { Seller } from '../../shared/billing-documents';
import type { Mismatch } from './mismatch';
import type { Money } from './provider';

export type PurchaseStatus = 'pending' | 'completed' | 'rejected' | 'expired';

export type Purchase = {
  id: string;
  user_id: string;
  amount: string;
  status: PurchaseStatus;
  provider: string;
  provider_order_id: string | null;
  created_at: Date;
};

const COLUMNS = 'id, user_id, amount, status, provider, provider_order_id, created_at';

/** Starts a pending purchase as the signed-in caller: the SQL takes the user from auth.uid(). */
/** The new purchase's id, or null when the token names an account that no longer exists. */
export async function beginPurchase(db: Database, claims: Record<string, unknown>, amountCents: number, provider: string): Promise<string | null> {
  try {
    return await withClaims(db, { role: 'authenticated', claims }, async (tx) => {
      const { rows } = await tx.query<{ id: string }>('select private.begin_credit_purchase($1, $2) as id', [(amountCents / 100).toFixed(2), provider]);
      return rows[0]!.id;
    });
  } catch (e) {
    if (isDbError(e) && e.code === '42501') return null;
    throw e;
  }
}

export async function attachOrder(db: Database, purchaseId: string, orderId: string): Promise<void> {
  await db.query('select private.attach_purchase_order($1, $2)', [purchaseId, orderId]);
}

export type CompleteOutcome =
  { outcome: 'credited' | 'already' | 'unknown'; user_id?: string; amount?: string; receipt?: string } | (Mismatch & { status: PurchaseStatus });

/**
 * Credits the purchase of this order once and issues its receipt, when the capture is in the
 * order's currency and amount; otherwise holds it (see private.complete_purchase). `byValue`: a
 * crypto invoice, which credits any positive USD amount that arrived, with its note.
 */
export async function completePurchase(
  q: Queryable,
  orderId: string,
  captured: Money & { captureId: string | null },
  seller: Seller,
  byValue?: { note: string | null },
): Promise<CompleteOutcome> {
  const { rows } = await q.query<{ r: CompleteOutcome }>('select private.complete_purchase($1, $2, $3, $4, $5, $6, $7) as r', [
    orderId,
    captured.currency,
    captured.value,
    captured.captureId,
    seller,
    byValue !== undefined,
    byValue?.note ?? null,
  ]);
  return rows[0]!.r;
}

/** Closes a pending purchase unpaid; answers its status afterwards. */
export async function closePurchase(db: Database, purchaseId: string, status: 'rejected' | 'expired'): Promise<PurchaseStatus> {
  const { rows } = await db.query<{ s: PurchaseStatus }>('select private.close_purchase($1, $2) as s', [purchaseId, status]);
  return rows[0]!.s;
}

export async function findPurchase(db: Database, by: { id: string } | { orderId: string }): Promise<Purchase | undefined> {
  const { rows } = await db.query<Purchase>(
    'id' in by ? `select ${COLUMNS} from public.credit_purchases where id = $1` : `select ${COLUMNS} from public.credit_purchases where provider_order_id = $1`,
    ['id' in by ? by.id : by.orderId],
  );
  return rows[0];
}

/** Pending purchases at least `minAgeMs` old, oldest first. */
export async function pendingPurchases(db: Database, minAgeMs: number, limit: number): Promise<Purchase[]> {
  const { rows } = await db.query<Purchase>(
    `select ${COLUMNS} from public.credit_purchases
      where status = 'pending' and created_at <= now() - make_interval(secs => $1)
      order by created_at limit $2`,
    [minAgeMs / 1000, limit],
  );
  return rows;
}
