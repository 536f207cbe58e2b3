import type { Database, Queryable } from './database';

export type DbRole = 'anon' | 'authenticated' | 'service_role';

/** What PostgREST puts in the transaction before running a request (supabase-wire §4.5). */
export type RequestContext = {
  role: DbRole;
  /** The verified JWT claims; `role` is forced to the effective role. */
  claims: Record<string, unknown>;
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  /** READ ONLY transaction (PostgREST: GET/HEAD, and RPCs of STABLE/IMMUTABLE functions). */
  readOnly?: boolean;
  /** `statement_timeout` for the rest of the transaction, e.g. '3s'; the role's default when absent. */
  statementTimeout?: string;
};

/**
 * Runs `fn` in one transaction as the request's role with its claims set, as PostgREST does, so
 * row-level security and auth.uid() apply to everything `fn` runs. Settings are transaction-local.
 */
export function withClaims<T>(db: Database, ctx: RequestContext, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await setClaims(tx, ctx);
    return fn(tx);
  });
}

/**
 * Sets role, claims, request settings, statement timeout and access mode inside an already open
 * transaction, in one round trip. Going read-only is allowed at any point of a transaction.
 */
export async function setClaims(tx: Queryable, ctx: RequestContext): Promise<void> {
  const claims = JSON.stringify({ ...ctx.claims, role: ctx.role });
  await tx.query(
    `select set_config('search_path', 'public, extensions', true),
            set_config('role', $1, true),
            set_config('request.jwt.claims', $2, true),
            set_config('request.method', $3, true),
            set_config('request.path', $4, true),
            set_config('request.headers', $5, true),
            set_config('statement_timeout', coalesce($6, current_setting('statement_timeout')), true),
            set_config('transaction_read_only', $7, true)`,
    [
      ctx.role,
      claims,
      ctx.method ?? '',
      ctx.path ?? '',
      JSON.stringify(ctx.headers ?? {}),
      ctx.statementTimeout ?? null,
      ctx.readOnly ? 'on' : 'off',
    ],
  );
}
