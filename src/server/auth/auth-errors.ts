import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { failureMessage, type DbFailure } from '../db/db-failure';

/**
 * An error answered in GoTrue's HTTPError shape (supabase-wire §2.1). Thrown by auth code and
 * turned into a response by the /auth/v1 router; `extra` adds fields such as `weak_password`.
 */
export class AuthError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AuthError';
  }
}

/** An error in OAuth's shape, always status 400: `{error, error_description}`. */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
  ) {
    super(description);
    this.name = 'OAuthError';
  }
}

export const badJson = (why: string) => new AuthError(400, 'bad_json', `Could not parse request body as JSON: ${why}`);
export const validationFailed = (message: string) => new AuthError(400, 'validation_failed', message);

/** Supabase's `X-Supabase-Api-Version` at or after which errors carry a string `code`. */
const API_VERSION_2024 = '2024-01-01';

/** Whether the client asked for the 2024-01-01 error format (auth-js always does). */
export function wantsApiVersion2024(header: string | undefined): boolean {
  if (!header || !/^\d{4}-\d{2}-\d{2}$/.test(header)) return false;
  return header >= API_VERSION_2024;
}

/**
 * The body and headers GoTrue sends for an AuthError. With the 2024 version the body is
 * `{code, message}`; `error_code` and `msg` are added for clients that cannot read the header.
 * Otherwise the legacy `{code: status, error_code, msg}`.
 */
export function authErrorPayload(err: AuthError, apiVersionHeader: string | undefined) {
  const headers: Record<string, string> = { 'x-sb-error-code': err.code, ...err.headers };
  if (wantsApiVersion2024(apiVersionHeader)) {
    headers['X-Supabase-Api-Version'] = API_VERSION_2024;
    return { headers, body: { code: err.code, message: err.message, error_code: err.code, msg: err.message, ...err.extra } };
  }
  return { headers, body: { code: err.status, error_code: err.code, msg: err.message, ...err.extra } };
}

/**
 * GoTrue's word for each passing database failure: its own `request_timeout` (504), `conflict`
 * (409) and `over_request_rate_limit` (429); GoTrue has none for 503, which auth-js retries by
 * status whatever the code.
 */
const FAILURE_CODES: Record<DbFailure['kind'], string> = {
  unavailable: 'service_unavailable',
  pool_timeout: 'service_unavailable',
  caller_busy: 'over_request_rate_limit',
  statement_timeout: 'request_timeout',
  lock_timeout: 'conflict',
};

/** The AuthError answered for a passing database failure, with its Retry-After. */
export function authErrorFor(failure: DbFailure): AuthError {
  return new AuthError(failure.status, FAILURE_CODES[failure.kind], failureMessage(failure), {}, { 'Retry-After': String(failure.retryAfter) });
}
