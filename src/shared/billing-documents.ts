/** Receipts and credit notes (public.billing_documents, migration 0029). */

/** Who issues the documents: BILLING_COMPANY_NAME, BILLING_ADDRESS and BILLING_TAX_ID. */
export type Seller = { name: string; address: string | null; taxId: string | null };

/** The seller's name when BILLING_COMPANY_NAME is not set. */
export const SELLER_NAME = 'NodeHarbor';

export type DocumentKind = 'receipt' | 'credit_note';

export const DOCUMENT_TITLES: Record<DocumentKind, string> = { receipt: 'Receipt', credit_note: 'Credit note' };

/** A receipt's number (NH-2026-000123) or a credit note's (NH-CN-2026-000007). */
export const DOCUMENT_NUMBER = /^NH(-CN)?-\d{4}-\d{6,}$/;

/** The file a document downloads as: "NH-2026-000123.pdf". */
export const documentFileName = (number: string) => `${number}.pdf`;

/** A receipt's, credit note's or statement's download refused by its rate limit, with the wait in minutes. */
export const tooManyDownloads = (minutes: number) => `Too many downloads. Please try again in ${minutes} minutes.`;
