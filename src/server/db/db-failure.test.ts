import { describe, expect, it } from 'vitest';
import { classifyDbFailure, DbConnectionError } from './db-failure';

/** An error as node-postgres or PGlite raises it: a message and a code. */
const dbError = (code: string, message = 'boom') => Object.assign(new Error(message), { code });

describe('classifyDbFailure', () => {
  it.each([
    ['57P01', 'terminating connection due to administrator command'],
    ['57P02', 'terminating connection due to crash of another server process'],
    ['57P03', 'the database system is starting up'],
    ['08006', 'connection failure'],
    ['08001', 'could not connect'],
    ['08P01', 'protocol violation'],
    ['53300', 'sorry, too many clients already'],
  ])('answers %s (%s) with 503, its SQLSTATE and Retry-After', (code, message) => {
    expect(classifyDbFailure(dbError(code, message))).toEqual({ kind: 'unavailable', status: 503, retryAfter: 2, code, message });
  });

  it("answers the driver's socket error with 503 PGRST001, and leaves anyone else's alone", () => {
    expect(classifyDbFailure(new DbConnectionError('socket', 'connect ECONNREFUSED 127.0.0.1:5432'))).toMatchObject({
      kind: 'unavailable',
      status: 503,
      code: 'PGRST001',
    });
    // A client gone mid-body, or the Docker Engine refusing: not the database.
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'EPIPE']) expect(classifyDbFailure(dbError(code))).toBeUndefined();
  });

  it('answers a lost connection, a statement past its deadline and a pool timeout, which node-postgres gives no code, with 503', () => {
    expect(classifyDbFailure(new DbConnectionError('08006', 'Connection terminated unexpectedly'))).toMatchObject({
      kind: 'unavailable',
      status: 503,
      code: '08006',
    });
    // The database hangs: an outage, logged once, answered as PostgREST answers a connection's failure.
    expect(classifyDbFailure(new DbConnectionError('query_timeout', 'The database did not answer the statement within its deadline'))).toMatchObject({
      kind: 'unavailable',
      status: 503,
      retryAfter: 2,
      code: 'PGRST001',
    });
    expect(classifyDbFailure(new DbConnectionError('pool_timeout', 'timeout exceeded when trying to connect'))).toMatchObject({
      kind: 'pool_timeout',
      status: 503,
      code: 'PGRST003',
      retryAfter: 1,
    });
  });

  it('answers a statement timeout with 504, a lock timeout with 409 and a busy caller with 429, never 500', () => {
    expect(classifyDbFailure(dbError('57014', 'canceling statement due to statement timeout'))).toMatchObject({
      kind: 'statement_timeout',
      status: 504,
      code: '57014',
    });
    expect(classifyDbFailure(dbError('55P03', 'canceling statement due to lock timeout'))).toMatchObject({
      kind: 'lock_timeout',
      status: 409,
      code: '55P03',
      retryAfter: 1,
    });
    expect(classifyDbFailure(new DbConnectionError('caller_busy', 'busy'))).toMatchObject({ kind: 'caller_busy', status: 429, retryAfter: 1 });
  });

  it('finds the database error inside the cause of another', () => {
    const wrapped = new Error('task failed', { cause: dbError('57P03') });
    expect(classifyDbFailure(wrapped)?.kind).toBe('unavailable');
  });

  it("leaves everything else alone: our bugs stay 500s, the request's own errors 4xx", () => {
    for (const e of [
      dbError('23505'),
      dbError('42501'),
      dbError('53400'),
      dbError('XX000'),
      dbError('P0001'),
      new Error('plain'),
      new TypeError('x'),
      'text',
      undefined,
    ]) {
      expect(classifyDbFailure(e)).toBeUndefined();
    }
  });
});
