import type { DbRole } from '../db/with-claims';
import { isDbError } from '../db/database';
import { classifyDbFailure } from '../db/db-failure';

/** PostgREST's error body (supabase-wire §4.3): `details` and `hint` are JSON null when absent. */
export type RestErrorBody = { code: string; message: string; details: RestErrorDetails; hint: string | null };

/** Text, or for PGRST201 the candidate relationships as PostgREST lists them. */
export type RestErrorDetails = string | Record<string, string>[] | null;

/** An error answered in PostgREST's shape with its HTTP status. Thrown inside a request transaction, it rolls it back. */
export class RestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: RestErrorDetails = null,
    readonly hint: string | null = null,
    /** Extra response headers, e.g. WWW-Authenticate on a 401. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'RestError';
  }

  body(): RestErrorBody {
    return { code: this.code, message: this.message, details: this.details, hint: this.hint };
  }
}

/** A query string or select list PostgREST's parser would refuse. */
export function parseError(message: string, details: string | null = null): RestError {
  return new RestError(400, 'PGRST100', message, details);
}

export function invalidBody(message = 'Empty or invalid json'): RestError {
  return new RestError(400, 'PGRST102', message);
}

export function tableNotFound(table: string): RestError {
  return new RestError(404, 'PGRST205', `Could not find the table 'public.${table}' in the schema cache`);
}

export function writeColumnNotFound(table: string, column: string): RestError {
  return new RestError(400, 'PGRST204', `Could not find the '${column}' column of '${table}' in the schema cache`);
}

/** What PostgreSQL itself says for an unknown column in a select, filter or order (PostgREST passes it through). */
export function undefinedColumn(table: string, column: string): RestError {
  return new RestError(400, '42703', `column ${table}.${column} does not exist`);
}

export function functionNotFound(fn: string, args: readonly string[]): RestError {
  const list = [...args].sort().join(', ');
  return new RestError(
    404,
    'PGRST202',
    `Could not find the function public.${fn}${args.length ? `(${list})` : ' without parameters'} in the schema cache`,
    `Searched for the function public.${fn} with ${args.length ? `parameters ${list}` : 'no parameters'} or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.`,
  );
}

export function notSingular(rows: number): RestError {
  return new RestError(406, 'PGRST116', 'Cannot coerce the result to a single JSON object', `The result contains ${rows} rows`);
}

export function missingWhere(verb: 'UPDATE' | 'DELETE'): RestError {
  return new RestError(400, '21000', `${verb} requires a WHERE clause`);
}

/** SQLSTATE → HTTP status, PostgREST's `mapSQLtoHTTP` (supabase-wire §4.3). */
export function statusForSqlState(code: string, message: string, role: DbRole): number {
  if (code === '42501') return role === 'anon' ? 401 : 403;
  if (code === '23505' || code === '23503') return 409;
  if (code === 'P0001') return 400;
  if (/^PT\d{3}$/.test(code)) return Number(code.slice(2));
  if (code.startsWith('P0')) return 500;
  if (code === '42P01' || code === '42883') return 404;
  if (code === '22023') return /^role .* does not exist$/.test(message) ? 401 : 400;
  if (code.startsWith('08') || code.startsWith('53') || code === '57P01') return code === '53400' ? 500 : 503;
  if (code === '25006') return 405;
  if (code === '21000') return message.includes('requires a WHERE clause') ? 400 : 500;
  if (/^(0L|0P|28)/.test(code)) return 403;
  if (code === '42P17' || /^(09|25|2D|38|39|3B|40|54|55|57|58|F0|HV|XX)/.test(code)) return 500;
  return 400;
}

/** Turns whatever a request raised into a RestError; anything that is neither ours nor the database's is rethrown. */
export function toRestError(e: unknown, role: DbRole): RestError {
  if (e instanceof RestError) return e;
  // Unreachable, busy or timed out: worth a retry, which supabase-js makes for reads on 503.
  const failure = classifyDbFailure(e);
  if (failure) {
    return new RestError(failure.status, failure.code, failure.message, null, 'Retry later.', { 'Retry-After': String(failure.retryAfter) });
  }
  if (isDbError(e) && /^[0-9A-Z]{5}$/.test(e.code!)) {
    const code = e.code!;
    const status = statusForSqlState(code, e.message, role);
    const headers: Record<string, string> = status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {};
    return new RestError(status, code, e.message, e.detail || null, e.hint || null, headers);
  }
  throw e;
}
