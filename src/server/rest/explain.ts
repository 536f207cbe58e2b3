import type { Queryable } from '../db/database';
import type { Statement } from './build-sql';
import type { PreferCount } from './preferences';
import type { After } from './request-tx';

/** The statement's EXPLAIN in JSON (PR Query/SqlFragment.hs explainF). */
function explainOf(stmt: Statement): Statement {
  return { sql: `explain (format json) ${stmt.sql}`, params: stmt.params };
}

/** The planner's estimate of the rows `count` selects: the top node's "Plan Rows" (PR MainTx.hs decodeExplain). */
async function plannedRows(tx: Queryable, count: Statement): Promise<number | null> {
  const e = explainOf(count);
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
export function estimateTotal(count: PreferCount | undefined, countStmt: Statement): After | undefined {
  if (count !== 'planned' && count !== 'estimated') return undefined;
  return async (tx, row) => {
    const planned = await plannedRows(tx, countStmt);
    if (count === 'planned') return { ...row, total: planned };
    return { ...row, total: planned === null || row.total === null ? null : Math.max(Number(row.total), planned) };
  };
}
