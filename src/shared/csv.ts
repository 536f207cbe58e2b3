/*
 * The one CSV writer of every export: text a spreadsheet reads as text, never as a formula
 * (OWASP's CSV Injection guidance), and numbers we wrote ourselves left numbers.
 */

/** A number cell: written as given and never neutralised, since it holds only a sign, digits and a point. */
export type CsvNumber = { readonly csvNumber: string };
export type CsvCell = string | CsvNumber;

/** A number for a number column, with a fixed count of decimals (an amount: 2). */
export function csvNumber(value: number, decimals: number): CsvNumber {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
  return { csvNumber: value.toFixed(decimals) };
}

// What makes a spreadsheet read a cell as a formula (= + - @), or what some strip before looking
// (tab, carriage return, line feed).
const FORMULA_START = /^[=+\-@\t\r\n]/;
// A separator a spreadsheet may split a cell at (its locale's list separator, or a tool that
// ignores quotes), followed, after any spaces or quotes, by such a start: the cell it would make.
const FORMULA_AFTER_SEPARATOR = /([,;])(?=[ "]*[=+\-@\t\r\n])/g;

/**
 * A text cell as a spreadsheet must show it: a `'` before a formula start at its beginning and
 * after every separator a spreadsheet may split it at, then quoted (RFC 4180, quotes doubled).
 */
function textCell(text: string): string {
  const inert = (FORMULA_START.test(text) ? `'${text}` : text).replace(FORMULA_AFTER_SEPARATOR, "$1'");
  return `"${inert.replaceAll('"', '""')}"`;
}

const cell = (c: CsvCell) => (typeof c === 'string' ? textCell(c) : `"${c.csvNumber}"`);

/**
 * Rows as CSV: every cell quoted, lines ending in CRLF, and a byte order mark first so that
 * spreadsheets read the text as UTF-8.
 */
export function toCsv(rows: readonly (readonly CsvCell[])[]): string {
  return `\uFEFF${rows.map((r) => `${r.map(cell).join(',')}\r\n`).join('')}`;
}
