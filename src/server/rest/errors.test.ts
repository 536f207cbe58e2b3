import { describe, expect, it } from 'vitest';
import { statusForSqlState } from './errors';

describe('statusForSqlState (PostgREST mapSQLtoHTTP)', () => {
  it.each([
    ['23505', 'duplicate', 'authenticated', 409],
    ['23503', 'fk', 'authenticated', 409],
    ['42501', 'denied', 'anon', 401],
    ['42501', 'denied', 'authenticated', 403],
    ['P0001', 'raised', 'anon', 400],
    ['P0002', 'no data', 'anon', 500],
    ['PT402', 'pay', 'anon', 402],
    ['42P01', 'no table', 'anon', 404],
    ['42883', 'no function', 'anon', 404],
    ['22023', 'role "x" does not exist', 'anon', 401],
    ['22023', 'invalid parameter', 'anon', 400],
    ['08006', 'connection', 'anon', 503],
    ['53300', 'too many connections', 'anon', 503],
    ['53400', 'limit', 'anon', 500],
    ['57P01', 'shutdown', 'anon', 503],
    ['25006', 'read only', 'anon', 405],
    ['21000', 'UPDATE requires a WHERE clause', 'anon', 400],
    ['21000', 'more than one row returned by a subquery', 'anon', 500],
    ['28000', 'auth', 'anon', 403],
    ['42P17', 'infinite recursion', 'anon', 500],
    ['40001', 'serialization', 'anon', 500],
    ['23502', 'not null', 'anon', 400],
    ['22P02', 'invalid text', 'anon', 400],
  ] as const)('%s (%s, %s) → %i', (code, message, role, status) => {
    expect(statusForSqlState(code, message, role)).toBe(status);
  });
});
