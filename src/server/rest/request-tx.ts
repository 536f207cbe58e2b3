import type { Database, Queryable } from '../db/database';
import { withClaims, type RequestContext } from '../db/with-claims';
import type { ResultRow } from './build-sql';

/** What the request's transaction does with its statement's row before it ends: refuse it (max-affected) or complete it (a planned count). */
export type After = (tx: Queryable, row: ResultRow) => Promise<ResultRow> | ResultRow;

/** How a request's transaction ends (PR MainTx.hs): rolled back when asked, after what runs on its row. */
export type RequestEnd = { rollback: boolean; after?: After };

/** Whether the statement needs a transaction of its own rather than one round trip: rolling back a read-only one changes nothing. */
export function needsTransaction(end: RequestEnd, readOnly: boolean): boolean {
  return end.after !== undefined || (end.rollback && !readOnly);
}

/** Carries the answer out of a transaction that `fn` completed but that must not commit. */
class RolledBack<T> extends Error {
  constructor(readonly value: T) {
    super('rolled back as the request asked');
    this.name = 'RolledBack';
  }
}

/**
 * Runs `fn` in the request's transaction (withClaims) and commits, or rolls back once it has its
 * answer: the request answers as if it had committed. As PostgREST does before its rollback,
 * deferred constraints are checked first, so that a request that would fail at commit fails here too.
 */
export async function inRequestTransaction<T>(db: Database, ctx: RequestContext, rollback: boolean, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  if (!rollback) return withClaims(db, ctx, fn);
  try {
    return await withClaims(db, ctx, async (tx) => {
      const value = await fn(tx);
      await tx.query('set constraints all immediate');
      throw new RolledBack(value);
    });
  } catch (e) {
    if (e instanceof RolledBack) return e.value as T;
    throw e;
  }
}
