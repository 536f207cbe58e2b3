import type { Queryable } from '../db/database';
import type { Logger } from '../http/logger';
import { DOCUMENT_TITLES, type DocumentKind, type Seller } from '../../shared/billing-documents';
import { PROVIDER_LABELS } from '../../shared/crypto-payments';
import { line, newPdf, sellerBlock } from './pdf-text';

/** One row of public.billing_documents as the database driver returns it. */
export type BillingDocument = {
  number: string;
  kind: DocumentKind;
  receipt_number: string | null;
  amount: string | number;
  currency: string;
  provider: string;
  provider_reference: string | null;
  buyer_name: string | null;
  buyer_email: string | null;
  seller: Partial<Seller>;
  issued_at: Date | string;
};

const PROVIDERS: Record<string, string> = { ...PROVIDER_LABELS, test: 'Test provider — no money taken' };

/** "$25.00 USD"; another currency goes without a symbol ("25.00 EUR"). */
export function documentAmount(amount: string | number, currency: string): string {
  return `${currency === 'USD' ? '$' : ''}${Number(amount).toFixed(2)} ${currency}`;
}

/** The issue day in UTC, so that the document reads the same wherever it is opened. */
export function documentDate(at: Date | string): string {
  const day = new Date(at).toLocaleDateString('en-US', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' });
  return `${day} (UTC)`;
}

/**
 * The PDF of a receipt or credit note, drawn from its immutable row alone: rendering it again
 * gives the same document. Its fonts are embedded, so every name prints as it is written.
 */
export function renderDocumentPdf(doc: BillingDocument): Promise<Buffer> {
  const issuedAt = new Date(doc.issued_at);
  const { pdf, bytes } = newPdf({ Title: doc.number, Subject: DOCUMENT_TITLES[doc.kind], Author: doc.seller.name ?? '', CreationDate: issuedAt });
  sellerBlock(pdf, doc.seller);

  pdf.moveDown(2);
  line(pdf, DOCUMENT_TITLES[doc.kind], 'bold', 22);
  line(pdf, `Number: ${doc.number}`, 'regular', 11);
  line(pdf, `Issued: ${documentDate(issuedAt)}`, 'regular', 11);
  if (doc.kind === 'credit_note' && doc.receipt_number) line(pdf, `Corrects receipt ${doc.receipt_number}`, 'regular', 11);

  if (doc.buyer_name || doc.buyer_email) {
    pdf.moveDown();
    line(pdf, 'Billed to', 'bold', 11);
    if (doc.buyer_name) line(pdf, doc.buyer_name, 'regular', 11);
    if (doc.buyer_email) line(pdf, doc.buyer_email, 'regular', 11);
  }

  pdf.moveDown();
  line(pdf, doc.kind === 'receipt' ? 'Amount paid' : 'Amount refunded', 'bold', 11);
  line(pdf, documentAmount(doc.amount, doc.currency), 'regular', 16);
  pdf.moveDown();
  line(pdf, doc.kind === 'receipt' ? 'For: NodeHarbor credit' : 'For: NodeHarbor credit taken back', 'regular', 11);
  line(pdf, `Provider: ${PROVIDERS[doc.provider] ?? doc.provider}`, 'regular', 11);
  if (doc.provider_reference) line(pdf, `Provider reference: ${doc.provider_reference}`, 'regular', 11);

  pdf.end();
  return bytes;
}

/**
 * The PDF of the issued document numbered `number`, for a mail to carry, or null when it cannot
 * be drawn (logged): the mail then goes without it and says where to download it.
 */
export async function storedDocumentPdf(deps: { db: Queryable; logger: Logger }, number: string): Promise<Buffer | null> {
  try {
    const { rows } = await deps.db.query<BillingDocument>('select * from public.billing_documents where number = $1', [number]);
    return rows[0] ? await renderDocumentPdf(rows[0]) : null;
  } catch (e) {
    deps.logger.warn('document not attached', { number, error: e instanceof Error ? e.message : String(e) });
    return null;
  }
}
