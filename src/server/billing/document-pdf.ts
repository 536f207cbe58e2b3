import PDFDocument from 'pdfkit';
import type { Queryable } from '../db/database';
import type { Logger } from '../http/logger';
import { DOCUMENT_TITLES, type DocumentKind, type Seller } from '../../shared/billing-documents';

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

const PROVIDERS: Record<string, string> = { paypal: 'PayPal', test: 'Test provider — no money taken' };

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
 * gives the same document. Helvetica is built into every PDF reader, so no font file is embedded.
 */
export function renderDocumentPdf(doc: BillingDocument): Promise<Buffer> {
  const issuedAt = new Date(doc.issued_at);
  const pdf = new PDFDocument({
    size: 'A4',
    margin: 56,
    info: { Title: doc.number, Subject: DOCUMENT_TITLES[doc.kind], Author: doc.seller.name ?? '', CreationDate: issuedAt },
  });
  const done = new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    pdf.on('data', (c: Buffer) => chunks.push(c));
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
  });

  const seller = doc.seller;
  pdf
    .font('Helvetica-Bold')
    .fontSize(14)
    .text(seller.name ?? '');
  pdf.font('Helvetica').fontSize(10);
  for (const line of (seller.address ?? '').split(/\r?\n/)) if (line.trim()) pdf.text(line.trim());
  if (seller.taxId) pdf.text(`Tax ID: ${seller.taxId}`);

  pdf.moveDown(2).font('Helvetica-Bold').fontSize(22).text(DOCUMENT_TITLES[doc.kind]);
  pdf
    .font('Helvetica')
    .fontSize(11)
    .text(`Number: ${doc.number}`)
    .text(`Issued: ${documentDate(issuedAt)}`);
  if (doc.kind === 'credit_note' && doc.receipt_number) pdf.text(`Corrects receipt ${doc.receipt_number}`);

  if (doc.buyer_name || doc.buyer_email) {
    pdf.moveDown().font('Helvetica-Bold').text('Billed to').font('Helvetica');
    if (doc.buyer_name) pdf.text(doc.buyer_name);
    if (doc.buyer_email) pdf.text(doc.buyer_email);
  }

  pdf
    .moveDown()
    .font('Helvetica-Bold')
    .text(doc.kind === 'receipt' ? 'Amount paid' : 'Amount refunded');
  pdf.font('Helvetica').fontSize(16).text(documentAmount(doc.amount, doc.currency));
  pdf
    .fontSize(11)
    .moveDown()
    .text(doc.kind === 'receipt' ? 'For: NodeHarbor credit' : 'For: NodeHarbor credit taken back');
  pdf.text(`Provider: ${PROVIDERS[doc.provider] ?? doc.provider}`);
  if (doc.provider_reference) pdf.text(`Provider reference: ${doc.provider_reference}`);

  pdf.end();
  return done;
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
