// The ledger (public.credit_transactions) as the Billing › Transactions page and its CSV show it.
// Its own module, not constants.ts or validation.ts: only the signed-in area's chunks load it (bench:web).

/** credit_transactions.type, as its check constraint has it. */
export const TRANSACTION_TYPES = ['purchase', 'service_charge', 'refund', 'admin_credit'] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

/** A transaction's type in words, on the page and in the CSV alike. */
export const TRANSACTION_TYPE_LABELS: Record<TransactionType, string> = {
  purchase: 'Purchase',
  service_charge: 'Service charge',
  refund: 'Refund',
  admin_credit: 'Admin credit',
};

/** Rows per page of the Transactions page. */
export const LEDGER_PAGE_SIZE = 25;

export const ledgerMessages = {
  unknownType: (type: string) => `"${type}" is not a transaction type. Choose one from the list.`,
  badDate: (field: 'From' | 'To') => `${field} must be a date written as YYYY-MM-DD.`,
  fromAfterTo: 'The From date must be on or before the To date.',
  noMatch: 'No transactions match these filters.',
  none: 'No transactions yet.',
} as const;

/** The filters and page of the Transactions page; from and to are calendar days, both included. */
export type LedgerFilters = { type: TransactionType | null; from: string | null; to: string | null; page: number };

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whether `day` is YYYY-MM-DD and a day the calendar has (no 30 February). */
function isDay(day: string): boolean {
  const m = DAY.exec(day);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

const isType = (t: string): t is TransactionType => (TRANSACTION_TYPES as readonly string[]).includes(t);

/**
 * Checks the filters as the address or the form gives them (absent or empty: no filter). The first
 * fault is told in words, and nothing is filtered by it. A page that is not a whole number above 0 is page 1.
 */
export function parseLedgerFilters(input: {
  type?: string | null;
  from?: string | null;
  to?: string | null;
  page?: string | null;
}): { ok: true; filters: LedgerFilters } | { ok: false; error: string } {
  const type = input.type?.trim() || null;
  const from = input.from?.trim() || null;
  const to = input.to?.trim() || null;
  if (type !== null && !isType(type)) return { ok: false, error: ledgerMessages.unknownType(type) };
  if (from !== null && !isDay(from)) return { ok: false, error: ledgerMessages.badDate('From') };
  if (to !== null && !isDay(to)) return { ok: false, error: ledgerMessages.badDate('To') };
  // YYYY-MM-DD sorts as the calendar does.
  if (from !== null && to !== null && from > to) return { ok: false, error: ledgerMessages.fromAfterTo };
  const page = Number(input.page);
  return { ok: true, filters: { type, from, to, page: Number.isInteger(page) && page > 1 ? page : 1 } };
}
