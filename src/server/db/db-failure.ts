import { isDbError } from './database';

/**
 * The database failures that are nobody's bug, in one place for auth, REST, rpc, functions,
 * payments and the worker:
 * - `unavailable`: the database is unreachable, shutting down or starting up (08*, 57P01-57P03,
 *   53* but 53400, socket errors), or does not answer a statement within its client-side deadline
 *   (DATABASE_QUERY_TIMEOUT_MS), answered 503 and logged once per incident;
 * - `pool_timeout`: no pooled connection came free in time (DATABASE_POOL_TIMEOUT_MS), 503;
 * - `caller_busy`: the caller's own share of the database stayed in use (fair-share.ts), 429;
 * - `statement_timeout`: 57014, 504;
 * - `lock_timeout`: 55P03 lock_not_available (DATABASE_LOCK_TIMEOUT_MS), 409: another
 *   transaction holds the rows this one needs.
 * Every one of them is worth trying again, so each answer carries Retry-After.
 */
export type DbFailureKind = 'unavailable' | 'pool_timeout' | 'caller_busy' | 'statement_timeout' | 'lock_timeout';

export type DbFailure = {
  kind: DbFailureKind;
  status: 409 | 429 | 503 | 504;
  /** Seconds, for the Retry-After header. */
  retryAfter: number;
  /** What PostgREST's body says in `code`: the SQLSTATE, or PostgREST's own code when there is none. */
  code: string;
  message: string;
};

/**
 * No connection for this statement, where node-postgres gives no SQLSTATE: its connection was lost
 * (`08006`, connection_failure), its socket failed (`socket`: refused, reset, no route), the
 * database did not answer it within its deadline and the connection was destroyed
 * (`query_timeout`), no pooled connection came free in time (`pool_timeout`), or the caller's
 * share stayed in use (`caller_busy`).
 * The adapter gives these codes to the driver's errors only: a socket error of anything else (a
 * client gone mid-body, the Docker Engine) is no database failure.
 */
export class DbConnectionError extends Error {
  constructor(
    readonly code: '08006' | 'socket' | 'query_timeout' | 'pool_timeout' | 'caller_busy',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DbConnectionError';
  }
}

/** Socket errors of the driver that mean the server is out of reach (ENOTFOUND: DNS has no answer yet). */
export const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

function isUnavailableCode(code: string): boolean {
  if (code.startsWith('08')) return true;
  // 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up or in recovery).
  if (code === '57P01' || code === '57P02' || code === '57P03') return true;
  // Insufficient resources (too many connections, out of memory, disk full), as PostgREST answers
  // them; 53400 (configuration limit exceeded) is a mistake of ours, not a passing state.
  return code.startsWith('53') && code !== '53400';
}

function classifyOne(e: unknown): DbFailure | undefined {
  if (!isDbError(e)) return undefined;
  const code = e.code!;
  if (code === 'pool_timeout') {
    return { kind: 'pool_timeout', status: 503, retryAfter: 1, code: 'PGRST003', message: 'Timed out acquiring connection from connection pool.' };
  }
  if (code === 'caller_busy') {
    return { kind: 'caller_busy', status: 429, retryAfter: 1, code: 'PGRST003', message: 'Too many requests at once from this client' };
  }
  if (code === '57014') return { kind: 'statement_timeout', status: 504, retryAfter: 1, code, message: e.message };
  if (code === '55P03') return { kind: 'lock_timeout', status: 409, retryAfter: 1, code, message: e.message };
  // A socket error, or a connection given up for its silence, is not a SQLSTATE: PostgREST answers
  // a connection's failure with its own code.
  if (code === 'socket' || code === 'query_timeout')
    return { kind: 'unavailable', status: 503, retryAfter: 2, code: 'PGRST001', message: 'Database client error. Retrying the connection.' };
  if (isUnavailableCode(code)) return { kind: 'unavailable', status: 503, retryAfter: 2, code, message: e.message };
  return undefined;
}

/**
 * What kind of passing database failure `e` is, looking through `cause` (a task may wrap the
 * database's error in its own); undefined for anything else, which stays a 500 and a bug of ours.
 */
export function classifyDbFailure(e: unknown): DbFailure | undefined {
  for (let x = e, depth = 0; x && depth < 5; x = (x as { cause?: unknown }).cause, depth++) {
    const f = classifyOne(x);
    if (f) return f;
  }
  return undefined;
}

const MESSAGES: Record<DbFailureKind, string> = {
  unavailable: 'The service is temporarily unavailable, please try again shortly',
  pool_timeout: 'The service is busy, please try again shortly',
  caller_busy: 'Too many requests at once, please try again shortly',
  statement_timeout: 'The request took too long, please try again',
  lock_timeout: 'Another request is changing the same data, please try again',
};

/** A sentence for people, where the answer is not PostgREST's (auth, functions). */
export function failureMessage(failure: DbFailure): string {
  return MESSAGES[failure.kind];
}
