import { csvNumber, toCsv } from '@shared/csv';
import { TRANSACTION_TYPE_LABELS } from '@shared/ledger';
import type { Transaction } from './api/get-transactions';

const HEADER = ['Date', 'Type', 'Description', 'Amount', 'Transaction ID', 'Service ID'];

/**
 * The ledger as CSV (the shared writer: every cell quoted, text never a formula): a header row,
 * then one row per transaction with its date in ISO 8601 (UTC), its type in words and its amount
 * with two decimals, a number cell (a charge negative, and read as a number).
 */
export function ledgerCsv(rows: Transaction[]): string {
  return toCsv([
    HEADER,
    ...rows.map((t) => [
      new Date(t.created_at).toISOString(),
      TRANSACTION_TYPE_LABELS[t.type],
      t.description,
      csvNumber(t.amount, 2),
      t.id,
      t.service_id ?? '',
    ]),
  ]);
}

/** nodeharbor-transactions-YYYY-MM-DD.csv, dated today in the user's time zone. */
export function ledgerCsvName(now: Date, timeZone: string): string {
  // en-CA writes a date as YYYY-MM-DD.
  return `nodeharbor-transactions-${new Intl.DateTimeFormat('en-CA', { timeZone }).format(now)}.csv`;
}
