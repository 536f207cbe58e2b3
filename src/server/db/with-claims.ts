import type { Database, Deadlines, Queryable, QueryResult, Statement } from './database';

export type DbRole = 'anon' | 'authenticated' | 'service_role';

/** What PostgREST puts in the transaction before running a request (supabase-wire §4.5). */
export type RequestContext = {
  role: DbRole;
  /** The verified JWT claims; `role` is forced to the effective role. */
  claims: Record<string, unknown>;
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  /** The client's address as the server resolved it (TRUST_PROXY), for the admin audit log. */
  clientAddress?: string;
  /** READ ONLY transaction (PostgREST: GET/HEAD, and RPCs of STABLE/IMMUTABLE functions). */
  readOnly?: boolean;
  /** `statement_timeout` for the rest of the transaction, e.g. '3s'; the role's default when absent. */
  statementTimeout?: string;
  /** The request's id (requestIds), for the jobs its SQL enqueues. */
  requestId?: string | undefined;
  /** On the embedded database, which cannot keep statement_timeout: each statement's deadline in ms. */
  embeddedDeadlineMs?: number;
};

/** The request's embedded deadline, when it has one. */
const deadlinesOf = (ctx: RequestContext): Deadlines | undefined => (ctx.embeddedDeadlineMs === undefined ? undefined : { embeddedMs: ctx.embeddedDeadlineMs });

/**
 * Runs `fn` in one transaction as the request's role with its claims set, as PostgREST does, so
 * row-level security and auth.uid() apply to everything `fn` runs. Settings are transaction-local.
 */
export function withClaims<T>(db: Database, ctx: RequestContext, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await setClaims(tx, ctx);
    return fn(tx);
  }, deadlinesOf(ctx));
}

/**
 * The statement that sets role, claims, request settings, statement timeout and access mode
 * inside an open transaction. Going read-only is allowed at any point of a transaction.
 * It then refuses a token whose session has ended (auth.require_live_session), in the same
 * round trip; the CTE, volatile so always materialised, sets the claims before the check reads them.
 */
export function claimsStatement(ctx: RequestContext): Statement {
  const claims = JSON.stringify({ ...ctx.claims, role: ctx.role });
  const headers = JSON.stringify(ctx.headers ?? {});
  // The request's id, for the jobs it enqueues (nodeharbor.jobs.request_id): the one the server
  // assigned, written last, where json and jsonb take it over a raw header the client sent. Added
  // to the text, as copying the headers object into a new one cost ~100k instructions a request.
  const { requestId } = ctx;
  const headersText = requestId ? `${headers.slice(0, -1)}${headers === '{}' ? '' : ','}"x-request-id":${JSON.stringify(requestId)}}` : headers;
  return {
    sql: `with settings as (
            select set_config('search_path', 'public, extensions', true),
              set_config('role', $1, true),
              set_config('request.jwt.claims', $2, true),
              set_config('request.method', $3, true),
              set_config('request.path', $4, true),
              set_config('request.headers', $5, true),
              set_config('statement_timeout', coalesce($6, current_setting('statement_timeout')), true),
              set_config('transaction_read_only', $7, true),
              set_config('request.client_address', $8, true)
          )
          select auth.require_live_session() from settings`,
    params: [
      ctx.role,
      claims,
      ctx.method ?? '',
      ctx.path ?? '',
      headersText,
      ctx.statementTimeout ?? null,
      ctx.readOnly ? 'on' : 'off',
      ctx.clientAddress ?? '',
    ],
  };
}

/** Sets the request's role and claims inside an already open transaction, in one round trip. */
export async function setClaims(tx: Queryable, ctx: RequestContext): Promise<void> {
  const s = claimsStatement(ctx);
  await tx.query(s.sql, s.params);
}

/**
 * Runs one statement as the request's role with its claims, in a transaction of its own that
 * commits when it succeeds: what withClaims does, in one round trip on PostgreSQL (Database.batch).
 */
export async function queryWithClaims<T>(db: Database, ctx: RequestContext, statement: Statement): Promise<QueryResult<T>> {
  const [, result] = await db.batch([claimsStatement(ctx), statement], deadlinesOf(ctx));
  return result as QueryResult<T>;
}
