import { PAYMENT_APPROVAL_HOURS } from '../../shared/constants';
import { PaymentProviderError } from './provider';
import { closePurchase, pendingPurchases } from './purchases';
import { captureAndCredit, settleInvoice, type SettleDeps, type Settlement } from './settle';

export type ReconcileOptions = {
  /** Purchases younger than this are left to the browser's return (default 30 s). */
  minAgeMs?: number;
  /** Pending purchases older than this are given up as expired (spec §9: 48 hours). */
  expireAfterMs?: number;
  /** Purchases looked at per run. */
  limit?: number;
};

export type ReconcileSummary = Partial<Record<Settlement | 'unreachable', number>>;

/**
 * Settles pending purchases the browser did not come back for: asks the provider about each,
 * captures approved orders (crediting once), rejects voided ones, settles crypto invoices the
 * processor calls final (a callback that never came), and expires those still unpaid after 48
 * hours. Safe to run from several processes at once.
 */
export async function reconcilePendingPurchases(deps: SettleDeps, opts: ReconcileOptions = {}): Promise<ReconcileSummary> {
  const minAgeMs = opts.minAgeMs ?? 30_000;
  const expireAfterMs = opts.expireAfterMs ?? PAYMENT_APPROVAL_HOURS * 3600_000;
  const summary: ReconcileSummary = {};
  const count = (s: Settlement | 'unreachable') => (summary[s] = (summary[s] ?? 0) + 1);
  for (const p of await pendingPurchases(deps.db, minAgeMs, opts.limit ?? 200)) {
    const old = Date.now() - p.created_at.getTime() >= expireAfterMs;
    const crypto = p.provider === deps.crypto?.name ? deps.crypto : undefined;
    if (crypto && p.provider_order_id) {
      try {
        const settled = await settleInvoice(deps, await crypto.invoiceSettlement(p.provider_order_id));
        // Unpaid for 48 hours: expired here. A payment that still arrives is credited then (decision 050).
        count(settled === 'pending' && old ? await closePurchase(deps.db, p.id, 'expired') : settled);
      } catch (e) {
        if (!(e instanceof PaymentProviderError)) throw e;
        deps.logger.warn('reconciliation could not read a crypto invoice', { purchase_id: p.id, error: e.message });
        count(old && !e.transient ? await closePurchase(deps.db, p.id, 'expired') : 'unreachable');
      }
      continue;
    }
    // An order of another provider (the configuration changed) or none at all cannot be asked about.
    if (!p.provider_order_id || p.provider !== deps.payments.name) {
      count(old ? await closePurchase(deps.db, p.id, 'expired') : 'pending');
      continue;
    }
    try {
      const order = await deps.payments.getOrder(p.provider_order_id);
      if (order.state === 'approved' || order.state === 'completed') count(await captureAndCredit(deps, p.provider_order_id));
      else if (order.state === 'voided') count(await closePurchase(deps.db, p.id, 'rejected'));
      else count(old ? await closePurchase(deps.db, p.id, 'expired') : 'pending');
    } catch (e) {
      if (!(e instanceof PaymentProviderError)) throw e;
      deps.logger.warn('reconciliation could not settle a purchase', { purchase_id: p.id, error: e.message });
      // A lasting refusal (say, an approval that lapsed) is given up with the rest after 48 hours.
      count(old && !e.transient ? await closePurchase(deps.db, p.id, 'expired') : 'unreachable');
    }
  }
  return summary;
}
