import { TOP_UP_MAX, TOP_UP_MIN } from '@shared/constants';
import { topUpSchema } from '@shared/validation';

/**
 * What a top-up must add to cover `shortfall` dollars: whole cents rounded up, at least the
 * smallest purchase (spec §9's $1) and at most the largest. Null when nothing is missing.
 */
export function topUpFor(shortfall: number): number | null {
  if (!Number.isFinite(shortfall) || shortfall <= 0) return null;
  // Rounded to a millionth first: 5.5 - 0.0000000001 of float noise must not cost another cent.
  const cents = Math.ceil(Math.round(shortfall * 1e6) / 1e4);
  return Math.min(TOP_UP_MAX, Math.max(TOP_UP_MIN, cents / 100));
}

/** The amount a link to Billing asks for (paths.dashboardBillingAddFunds: ?amount=5.50), when it is one a top-up can be; otherwise null. */
export function requestedTopUp(param: string | null): number | null {
  if (param === null || param.trim() === '') return null;
  const parsed = topUpSchema.safeParse({ amount: Number(param) });
  return parsed.success ? parsed.data.amount : null;
}
