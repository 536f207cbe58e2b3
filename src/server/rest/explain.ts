import type { Database, Queryable } from '../db/database';
import { queryWithClaims, type DbRole, type RequestContext } from '../db/with-claims';
import type { ResultRow, Statement } from './build-sql';
import type { Explain } from './media-types';
import type { PreferCount } from './preferences';
import type { After } from './request-tx';

/**
 * Who may have a statement's EXPLAIN (application/vnd.pgrst.plan): the service role, and an admin
 * at the assurance level their account requires. PostgREST gives it to everyone once
 * db-plan-enabled is on; a plan shows the schema, its indexes and settings. Whether a user is an
 * admin is a query (private.is_admin, which an API token never passes), asked only of a request
 * that names a plan type.
 */
export async function mayExplain(db: Database, role: DbRole, accept: string | undefined, context: () => RequestContext): Promise<boolean> {
  if (role === 'service_role') return true;
  if (role !== 'authenticated' || !accept?.toLowerCase().includes('vnd.pgrst.plan')) return false;
  const { rows } = await queryWithClaims<{ ok: boolean }>(
    db,
    { ...context(), readOnly: true },
    {
      sql: 'select private.is_admin(auth.uid()) and private.meets_required_aal() as ok',
      params: [],
    },
  );
  return rows[0]?.ok === true;
}

/** The statement's EXPLAIN in `format` with `options` (PR Query/SqlFragment.hs explainF). */
function explainOf(stmt: Statement, format: Explain['format'], options: readonly string[] = []): Statement {
  return { sql: `explain (${[`format ${format}`, ...options].join(', ')}) ${stmt.sql}`, params: stmt.params };
}

/**
 * Runs the EXPLAIN a plan media type asks for and returns its text as the body, each line ended as
 * PostgREST ends them (PR MainTx.hs planRow). With `analyze` the statement runs, and commits unless
 * the request rolls back, as PostgREST's documentation says (observability.rst, "Execution plan").
 * Both drivers hand JSON over parsed: it is written out again, the same value in PostgreSQL's indentation.
 */
export async function runPlan(tx: Queryable, stmt: Statement, explain: Explain): Promise<ResultRow> {
  const e = explainOf(stmt, explain.format, explain.options);
  const { rows } = await tx.query<{ 'QUERY PLAN': unknown }>(e.sql, e.params);
  const lines = rows.map((r) => (explain.format === 'json' ? JSON.stringify(r['QUERY PLAN'], null, 2) : String(r['QUERY PLAN'])));
  return { total: null, page_total: 0, body: lines.map((l) => `${l}\n`).join('') };
}

/** The planner's estimate of the rows `count` selects: the top node's "Plan Rows" (PR MainTx.hs decodeExplain). */
async function plannedRows(tx: Queryable, count: Statement): Promise<number | null> {
  const e = explainOf(count, 'json');
  const { rows } = await tx.query<{ 'QUERY PLAN': [{ Plan?: { 'Plan Rows'?: unknown } }] }>(e.sql, e.params);
  const estimate = rows[0]?.['QUERY PLAN'][0]?.Plan?.['Plan Rows'];
  return typeof estimate === 'number' && Number.isInteger(estimate) ? estimate : null;
}

/**
 * count=planned and count=estimated of a read (PR MainTx.hs): planned is the planner's estimate
 * of `countStmt`; estimated is the exact count up to db-max-rows and above it the larger of the
 * two. This server has no db-max-rows, and PostgREST without one compares the exact count with an
 * absent maximum, which every count exceeds (Nothing < Just n): estimated is then always the
 * larger of exact and planned, as PostgREST answers (its spec RelatedQueriesSpec, "works with
 * count=estimated", expects 5 for 4 rows).
 */
export function estimateTotal(count: PreferCount | undefined, countStmt: () => Statement): After | undefined {
  if (count !== 'planned' && count !== 'estimated') return undefined;
  const counted = countStmt();
  return async (tx, row) => {
    const planned = await plannedRows(tx, counted);
    if (count === 'planned') return { ...row, total: planned };
    return { ...row, total: planned === null || row.total === null ? null : Math.max(Number(row.total), planned) };
  };
}
