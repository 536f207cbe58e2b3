import type { Database } from '../../src/server/db/database';
import { buildRead, buildRpc, type Statement } from '../../src/server/rest/build-sql';
import { parseQuery, splitQuery } from '../../src/server/rest/parse-query';
import { schemaCache } from '../../src/server/rest/schema-cache';

/** The dashboard's query of its services (src/web/features/services/api/get-services.ts). */
export const SERVICES_QUERY = '?select=*&is_deleted=eq.false&order=created_at.desc';

/** The SQL the server runs for GET /rest/v1/services SERVICES_QUERY, built by the server's own code. */
export async function servicesRead(db: Database): Promise<Statement> {
  const q = parseQuery(splitQuery(SERVICES_QUERY));
  const rel = await schemaCache(db).relation('services');
  return buildRead(rel!, q, 'array', false);
}

/** The SQL the server runs for POST /rest/v1/rpc/<name> with `args`. */
export async function rpcCall(db: Database, name: string, args: Record<string, unknown>): Promise<Statement> {
  const fn = (await schemaCache(db).routines(name))[0]!;
  return buildRpc(fn, args, parseQuery([]), 'array', false);
}

/**
 * A SQL literal for a pgbench script: an E'' string in which ':' is written \072, because
 * pgbench reads `:name` anywhere, even inside a string, as one of its variables.
 */
export function literal(v: string | null): string {
  return v === null ? 'null' : `E'${v.replace(/\\/g, '\\\\').replace(/'/g, "''").replace(/:/g, '\\072')}'`;
}

/**
 * The statement with its parameters written in (pgbench scripts take no bound values), each
 * `$n` replaced by the literal, or by the SQL expression `exprs[n]` when given.
 */
export function inline(s: { sql: string; params: readonly unknown[] }, exprs: Record<number, string> = {}): string {
  return s.sql.replace(/\$(\d+)/g, (_, n: string) => exprs[Number(n)] ?? literal((s.params[Number(n) - 1] as string | null) ?? null));
}

/**
 * A pgbench script of one request's transaction as the server sends it (BEGIN, the claims, the
 * statement, COMMIT), in a pipeline: prepared statements in one round trip, the best the
 * database's protocol allows. `prelude` lines (pgbench meta-commands) come first.
 */
export function pgbenchTransaction(statements: string[], prelude: string[] = []): string {
  const sql = ['begin', ...statements, 'commit'].map((s) => `${s.replace(/\s+/g, ' ')};`);
  return `${[...prelude, '\\startpipeline', ...sql, '\\endpipeline'].join('\n')}\n`;
}
