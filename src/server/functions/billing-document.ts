import type { Context } from 'hono';
import { DOCUMENT_NUMBER, documentFileName, tooManyDownloads } from '../../shared/billing-documents';
import { renderDocumentPdf, type BillingDocument } from '../billing/document-pdf';
import type { AppDeps } from '../deps';
import { withClaims } from '../db/with-claims';
import { callerContext, fail, jsonBody, overLimit } from './function-response';
import { signedInPastSecondFactor } from './second-factor';

/** Generous for a person clicking through Purchase History; it stops a script walking the numbers. */
const LIMIT = { max: 120, windowSeconds: 600 };

/** Longer than any number the counters will reach; it bounds what is sent to the database. */
const MAX_NUMBER_LENGTH = 32;

/**
 * Billing › Download receipt or credit note: the PDF of one document, drawn on demand from its
 * immutable row. The row is read as the caller (private.billing_document): its owner or an admin
 * gets it; for anyone else it does not exist.
 */
export async function billingDocument(deps: AppDeps, c: Context) {
  const caller = await signedInPastSecondFactor(deps, c);
  if (caller instanceof Response) return caller;
  const read = await jsonBody(c);
  if ('error' in read) return fail(c, 400, read.error);
  const number = read.body.number;
  if (typeof number !== 'string' || number.length > MAX_NUMBER_LENGTH || !DOCUMENT_NUMBER.test(number)) {
    return fail(c, 400, 'A document number looks like NH-2026-000123 or NH-CN-2026-000007');
  }
  const limited = await overLimit(deps, c, `billing-document:user:${caller.userId}`, LIMIT, (wait) => tooManyDownloads(Math.ceil(wait / 60)));
  if (limited) return limited;
  const doc = await withClaims(
    deps.db,
    callerContext(deps, c, caller, { readOnly: true }),
    async (tx) => (await tx.query<BillingDocument>('select * from private.billing_document($1)', [number])).rows[0],
  );
  // A foreign number answers as an unknown one: the answer tells no one which numbers exist.
  if (!doc) return fail(c, 404, 'Document not found');
  const pdf = await renderDocumentPdf(doc);
  return c.body(new Uint8Array(pdf), 200, {
    'Content-Type': 'application/pdf',
    'Content-Disposition': `attachment; filename="${documentFileName(doc.number)}"`,
    // A receipt names its buyer: no shared cache keeps it, and the browser does not either.
    'Cache-Control': 'private, no-store',
  });
}
