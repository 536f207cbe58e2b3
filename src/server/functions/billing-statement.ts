import type { Context } from 'hono';
import {
  STATEMENT_FORMATS,
  STATEMENT_MONTH,
  statementCsv,
  statementFileName,
  statementMessages,
  type Statement,
  type StatementFormat,
} from '../../shared/statements';
import { renderStatementPdf } from '../billing/statement-pdf';
import { isDbError } from '../db/database';
import type { AppDeps } from '../deps';
import { withClaims } from '../db/with-claims';
import { callerContext, fail, jsonBody, overLimit } from './function-response';
import { signedInPastSecondFactor } from './second-factor';

/** As for receipts: generous for a person, and a bound on a script drawing PDFs in a loop. */
const LIMIT = { max: 60, windowSeconds: 600 };

const CONTENT_TYPES: Record<StatementFormat, string> = { pdf: 'application/pdf', csv: 'text/csv; charset=utf-8' };

const isFormat = (f: unknown): f is StatementFormat => (STATEMENT_FORMATS as readonly unknown[]).includes(f);

/**
 * Billing › Statements: one month's statement of the caller's own ledger as a PDF or a CSV, drawn
 * on demand (public.get_statement, read as the caller). A month without a line answers 404.
 */
export async function billingStatement(deps: AppDeps, c: Context) {
  const caller = await signedInPastSecondFactor(deps, c);
  if (caller instanceof Response) return caller;
  const read = await jsonBody(c);
  if ('error' in read) return fail(c, 400, read.error);
  const { month, format } = read.body;
  if (typeof month !== 'string' || !STATEMENT_MONTH.test(month)) return fail(c, 400, statementMessages.badMonth);
  if (!isFormat(format)) return fail(c, 400, statementMessages.badFormat);
  const limited = await overLimit(deps, c, `billing-statement:user:${caller.userId}`, LIMIT, (wait) => statementMessages.tooMany(Math.ceil(wait / 60)));
  if (limited) return limited;
  let statement: Statement;
  try {
    statement = await withClaims(
      deps.db,
      callerContext(deps, c, caller, { readOnly: true }),
      async (tx) => (await tx.query<{ s: Statement }>('select public.get_statement($1) as s', [month])).rows[0]!.s,
    );
  } catch (e) {
    if (isDbError(e) && e.code === 'P0002') return fail(c, 404, statementMessages.none(month));
    throw e;
  }
  const body = format === 'pdf' ? new Uint8Array(await renderStatementPdf(statement, deps.seller)) : statementCsv(statement);
  return c.body(body, 200, {
    'Content-Type': CONTENT_TYPES[format],
    'Content-Disposition': `attachment; filename="${statementFileName(month, format)}"`,
    // A statement names its customer: no shared cache keeps it, and the browser does not either.
    'Cache-Control': 'private, no-store',
  });
}
