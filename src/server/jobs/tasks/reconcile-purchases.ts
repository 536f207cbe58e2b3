import { z } from 'zod';
import { reconcilePendingPurchases } from '../../payments/reconcile';
import { defineTask } from '../task';

/**
 * Settles the purchases whose buyer never came back from the provider (spec §9: an approved
 * payment reaches the balance within 120 s). Crediting is keyed by the order id, so a run that
 * overlaps another credits nothing twice.
 */
export const reconcilePurchases = defineTask({
  name: 'reconcile-purchases',
  lane: 'upkeep',
  payload: z.object({}),
  async run(_payload, deps) {
    const summary = await reconcilePendingPurchases(deps);
    if (Object.keys(summary).length) deps.logger.info('purchases reconciled', summary);
  },
});
