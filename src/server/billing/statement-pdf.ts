import type { Seller } from '../../shared/billing-documents';
import { STATEMENT_LINE_LABELS, statementMonthName, type Statement, type StatementLine } from '../../shared/statements';
import { cell, cellHeight, line, newPdf, sellerBlock } from './pdf-text';

/** "-$3.00": a statement's amounts are USD, the ledger's currency. */
export const statementMoney = (n: number) => `${n < 0 ? '-' : ''}$${Math.abs(n).toFixed(2)}`;

const day = (at: string) => new Date(at).toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });
const time = (at: string) => `${new Date(at).toISOString().slice(11, 16)} UTC`;

/** The table's columns, on A4 between margins of 56 points. */
const COLUMNS = {
  date: { x: 56, width: 70 },
  description: { x: 130, width: 235 },
  amount: { x: 370, width: 75, align: 'right' },
  balance: { x: 450, width: 89, align: 'right' },
} as const;
const BODY = { weight: 'regular', size: 9 } as const;
const SMALL = { weight: 'regular', size: 8 } as const;
const ROW_GAP = 6;

/** Under the description: the line's type, and for a service charge the period it paid for. */
function detail(l: StatementLine): string {
  const period = l.period_start && l.period_end ? ` · Paid period: ${day(l.period_start)} – ${day(l.period_end)}` : '';
  return `${STATEMENT_LINE_LABELS[l.kind]}${period}`;
}

function header(pdf: PDFKit.PDFDocument, y: number): number {
  const bold = { weight: 'bold', size: 9 } as const;
  cell(pdf, 'Date', { ...COLUMNS.date, ...bold, y });
  cell(pdf, 'Description', { ...COLUMNS.description, ...bold, y });
  cell(pdf, 'Amount', { ...COLUMNS.amount, ...bold, y });
  const h = cell(pdf, 'Balance', { ...COLUMNS.balance, ...bold, y });
  const { left, right } = pdf.page.margins;
  pdf
    .moveTo(left, y + h + 2)
    .lineTo(pdf.page.width - right, y + h + 2)
    .lineWidth(0.5)
    .stroke();
  return y + h + ROW_GAP;
}

/**
 * A month's statement as a PDF: the seller, the buyer as Account has them (company and VAT number
 * included), the opening balance, every line with the balance after it, and the closing balance.
 * Drawn from public.get_statement's answer alone.
 */
export function renderStatementPdf(s: Statement, seller: Seller): Promise<Buffer> {
  const name = statementMonthName(s.month);
  const { pdf, bytes } = newPdf({ Title: `Statement ${s.month}`, Subject: `NodeHarbor statement for ${name}`, Author: seller.name });
  sellerBlock(pdf, seller);

  pdf.moveDown(2);
  line(pdf, 'Statement', 'bold', 22);
  line(pdf, name, 'regular', 12);
  const last = new Date(new Date(s.to).getTime() - 1).toISOString();
  line(pdf, `Period: ${day(s.from)} to ${day(last)} (UTC)`, 'regular', 11);

  pdf.moveDown();
  line(pdf, 'Account', 'bold', 11);
  for (const l of [s.buyer.name, s.buyer.company, s.buyer.vat && `VAT number: ${s.buyer.vat}`, s.buyer.email]) if (l) line(pdf, l, 'regular', 11);

  pdf.moveDown();
  line(pdf, `Opening balance: ${statementMoney(s.opening)}`, 'bold', 11);
  pdf.moveDown();

  const bottom = pdf.page.height - pdf.page.margins.bottom;
  let y = header(pdf, pdf.y);
  for (const l of s.lines) {
    const what = detail(l);
    const height = Math.max(
      cellHeight(pdf, l.description, { ...COLUMNS.description, ...BODY }) + cellHeight(pdf, what, { ...COLUMNS.description, ...SMALL }),
      cellHeight(pdf, day(l.at), { ...COLUMNS.date, ...BODY }) * 2,
    );
    if (y + height > bottom) {
      pdf.addPage();
      y = header(pdf, pdf.page.margins.top);
    }
    const dateHeight = cell(pdf, day(l.at), { ...COLUMNS.date, ...BODY, y });
    cell(pdf, time(l.at), { ...COLUMNS.date, ...SMALL, y: y + dateHeight });
    const descriptionHeight = cell(pdf, l.description, { ...COLUMNS.description, ...BODY, y });
    cell(pdf, what, { ...COLUMNS.description, ...SMALL, y: y + descriptionHeight });
    cell(pdf, l.amount === null ? '' : statementMoney(l.amount), { ...COLUMNS.amount, ...BODY, y });
    cell(pdf, statementMoney(l.balance), { ...COLUMNS.balance, ...BODY, y });
    y += height + ROW_GAP;
  }

  pdf.x = pdf.page.margins.left;
  pdf.y = y + ROW_GAP;
  line(pdf, `Closing balance: ${statementMoney(s.closing)}`, 'bold', 11);
  pdf.moveDown();
  line(pdf, 'Amounts are in US dollars. A negative amount is a charge or credit taken back.', 'regular', 8);

  pdf.end();
  return bytes;
}
