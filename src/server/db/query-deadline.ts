import { AsyncLocalStorage } from 'node:async_hooks';

const deadlines = new AsyncLocalStorage<number>();

/**
 * Runs `fn` with `ms` as the client-side deadline of every statement it sends to PostgreSQL,
 * instead of DATABASE_QUERY_TIMEOUT_MS: shorter for a probe that must answer at once, longer for
 * migrations, which may rewrite a large table or wait for another process's migrations. A
 * statement past its deadline fails (503) and its connection is destroyed (db/postgres.ts).
 */
export function withQueryDeadline<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  return deadlines.run(ms, fn);
}

/** The deadline withQueryDeadline set for the statements of this async context, if any. */
export function queryDeadline(): number | undefined {
  return deadlines.getStore();
}
