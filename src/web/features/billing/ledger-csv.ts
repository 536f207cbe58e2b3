import { TRANSACTION_TYPE_LABELS } from '@shared/ledger';
import type { Transaction } from './api/get-transactions';

const HEADER = ['Date', 'Type', 'Description', 'Amount', 'Transaction ID', 'Service ID'];

/**
 * A text cell a spreadsheet would not run: one that begins like a formula (= + - @, or a tab or
 * carriage return that some strip first) gets a leading apostrophe.
 */
function inert(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/** RFC 4180: a cell with a comma, a quote or a line break is quoted, its quotes doubled. */
function quoted(cell: string): string {
  return /[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
}

/**
 * The ledger as CSV: a header row, then one row per transaction with its date in ISO 8601 (UTC),
 * its type in words and its amount with two decimals (a charge negative, left as a number).
 * Lines end in CRLF, and a byte order mark tells spreadsheets the text is UTF-8.
 */
export function ledgerCsv(rows: Transaction[]): string {
  const lines = [
    HEADER,
    ...rows.map((t) => [
      new Date(t.created_at).toISOString(),
      TRANSACTION_TYPE_LABELS[t.type],
      inert(t.description),
      t.amount.toFixed(2),
      t.id,
      t.service_id ?? '',
    ]),
  ];
  return `\uFEFF${lines.map((cells) => cells.map(quoted).join(',')).join('\r\n')}\r\n`;
}

/** nodeharbor-transactions-YYYY-MM-DD.csv, dated today in the user's time zone. */
export function ledgerCsvName(now: Date, timeZone: string): string {
  // en-CA writes a date as YYYY-MM-DD.
  return `nodeharbor-transactions-${new Intl.DateTimeFormat('en-CA', { timeZone }).format(now)}.csv`;
}
