import type { Database } from '../../src/server/db/database';
import { buildRead, buildRpc, type Statement } from '../../src/server/rest/build-sql';
import { parseQuery, splitQuery } from '../../src/server/rest/parse-query';
import { planRead } from '../../src/server/rest/plan';
import { schemaCache } from '../../src/server/rest/schema-cache';

/** The dashboard's query of its services (src/web/features/services/api/get-services.ts). */
export const SERVICES_QUERY = '?select=*&is_deleted=eq.false&order=created_at.desc';

/** The SQL the server runs for GET /rest/v1/<table><query>, built by the server's own code. */
export async function tableRead(db: Database, table: string, query: string): Promise<Statement> {
  const snapshot = await schemaCache(db).current();
  const rel = snapshot.relations.get(table)!;
  return buildRead(rel, planRead(snapshot, rel, rel.name, parseQuery(splitQuery(query)), { aggregates: false }), 'array', false);
}

/** The SQL the server runs for GET /rest/v1/services SERVICES_QUERY. */
export function servicesRead(db: Database): Promise<Statement> {
  return tableRead(db, 'services', SERVICES_QUERY);
}

/** The SQL the server runs for POST /rest/v1/rpc/<name> with `args`. */
export async function rpcCall(db: Database, name: string, args: Record<string, unknown>): Promise<Statement> {
  const snapshot = await schemaCache(db).current();
  const fn = snapshot.routines.get(name)![0]!;
  const q = parseQuery([]);
  return buildRpc(fn, args, q, planRead(snapshot, { name: fn.name, columns: fn.columns }, fn.relation ?? fn.name, q, { aggregates: false }), 'array', false);
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
