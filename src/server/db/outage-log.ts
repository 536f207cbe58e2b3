import type { Logger } from '../http/logger';
import type { Database } from './database';
import { classifyDbFailure } from './db-failure';

/** A full pool is said at most this often: under load it can happen on every other request. */
const POOL_WARNING_EVERY_MS = 60_000;

/**
 * The database, saying in the log when it becomes unavailable and when it is back: once per
 * incident, whatever the number of requests that meet it, so callers answer such failures
 * without logging them. An incident opens on the first failure of kind `unavailable` and closes
 * on the next statement that succeeds.
 */
export function logOutages(db: Database, logger: Logger): Database {
  let downSince: number | undefined;
  let poolWarnedAt = -Infinity;
  const watch = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      const out = await fn();
      if (downSince !== undefined) {
        logger.info('database available again', { unavailable_ms: Date.now() - downSince });
        downSince = undefined;
      }
      return out;
    } catch (e) {
      const failure = classifyDbFailure(e);
      if (failure?.kind === 'unavailable' && downSince === undefined) {
        downSince = Date.now();
        logger.error('database unavailable', { code: failure.code, error: e instanceof Error ? e.message : String(e) });
      } else if (failure?.kind === 'pool_timeout' && Date.now() - poolWarnedAt >= POOL_WARNING_EVERY_MS) {
        poolWarnedAt = Date.now();
        logger.warn('database pool exhausted: statements waited longer than DATABASE_POOL_TIMEOUT_MS for a connection');
      }
      throw e;
    }
  };
  return {
    kind: db.kind,
    query: (sql, params, name) => watch(() => db.query(sql, params, name)),
    exec: (sql) => watch(() => db.exec(sql)),
    transaction: (fn, deadlines) => watch(() => db.transaction(fn, deadlines)),
    batch: (statements, deadlines) => watch(() => db.batch(statements, deadlines)),
    close: () => db.close(),
    stats: () => db.stats?.() ?? {},
  };
}
