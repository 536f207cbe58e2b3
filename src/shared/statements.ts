/**
 * Monthly statements (issue 38, item 2; migration 0056): what a statement holds, its words and its
 * CSV, once for the server that draws it and the page that lists it. The SQL function
 * public.get_statement raises `statementMessages` word for word.
 */

import { tooManyDownloads } from './billing-documents';
import { csvNumber, toCsv } from './csv';
import { TRANSACTION_TYPE_LABELS, type TransactionType } from './ledger';

/** A line without an amount: the event that explains a renewal that was not charged. */
export type StatementNote = 'suspension' | 'termination';
export type StatementLineKind = TransactionType | StatementNote;

export const STATEMENT_LINE_LABELS: Record<StatementLineKind, string> = {
  ...TRANSACTION_TYPE_LABELS,
  suspension: 'Suspension',
  termination: 'Termination',
};

/** One line of public.get_statement, as its JSON has it. */
export type StatementLine = {
  at: string;
  kind: StatementLineKind;
  description: string;
  service_id: string | null;
  /** The period a service charge paid for. */
  period_start: string | null;
  period_end: string | null;
  /** Null on a note. */
  amount: number | null;
  /** The balance after the line. */
  balance: number;
  /** The ledger transaction's id; null on a note. */
  reference: string | null;
};

export type StatementBuyer = { name: string | null; email: string | null; company: string | null; vat: string | null };

/** public.get_statement's answer: one UTC month of the caller's ledger. */
export type Statement = {
  month: string;
  from: string;
  to: string;
  opening: number;
  closing: number;
  buyer: StatementBuyer;
  lines: StatementLine[];
};

/** A row of public.get_statement_months. */
export type StatementMonth = { month: string; opening: number; closing: number; lines: number };

export const STATEMENT_FORMATS = ['pdf', 'csv'] as const;
export type StatementFormat = (typeof STATEMENT_FORMATS)[number];

/** A statement's month: YYYY-MM. */
export const STATEMENT_MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;

export const statementMessages = {
  badMonth: 'A statement month is written as YYYY-MM, for example 2026-10.',
  badFormat: 'A statement downloads as "pdf" or "csv".',
  none: (month: string) => `There is no statement for ${month}: nothing happened on the account that month.`,
  empty: 'No statements yet. A statement appears for every month with a payment, a charge, a refund or a credit.',
  downloadFailed: 'Could not download the statement',
  tooMany: tooManyDownloads,
} as const;

/** "October 2026", for the month YYYY-MM. */
export function statementMonthName(month: string): string {
  const [y, m] = month.split('-').map(Number);
  return new Date(Date.UTC(y!, m! - 1, 1)).toLocaleDateString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });
}

/** nodeharbor-statement-2026-10.pdf (or .csv). */
export const statementFileName = (month: string, format: StatementFormat) => `nodeharbor-statement-${month}.${format}`;

/** An instant as the statement writes it: ISO 8601 in UTC. */
const iso = (at: string | null) => (at === null ? '' : new Date(at).toISOString());

/**
 * The statement as CSV (the shared writer): a row for the opening balance, one per line with its
 * type in words, its amount (empty on a note) and the balance after it, then the closing balance.
 */
export function statementCsv(s: Statement): string {
  const amount = (n: number | null) => (n === null ? '' : csvNumber(Number(n), 2));
  return toCsv([
    ['Date', 'Type', 'Description', 'Service ID', 'Period start', 'Period end', 'Amount', 'Balance', 'Transaction ID'],
    [iso(s.from), 'Opening balance', '', '', '', '', '', amount(s.opening), ''],
    ...s.lines.map((l) => [
      iso(l.at),
      STATEMENT_LINE_LABELS[l.kind],
      l.description,
      l.service_id ?? '',
      iso(l.period_start),
      iso(l.period_end),
      amount(l.amount),
      amount(l.balance),
      l.reference ?? '',
    ]),
    [iso(s.to), 'Closing balance', '', '', '', '', '', amount(s.closing), ''],
  ]);
}
