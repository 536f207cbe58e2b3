import { decodeJwt } from 'jose';
import { Secret, TOTP } from 'otpauth';
import type { TestServer } from '../helpers/server';

/** Calls /auth/v1 directly, as auth-js would, to see status, headers and body exactly. */
export async function authFetch(
  t: TestServer,
  path: string,
  init: { method?: string; body?: unknown; bearer?: string; headers?: Record<string, string>; apiVersion?: boolean } = {},
) {
  const headers: Record<string, string> = { apikey: t.anonKey, 'content-type': 'application/json;charset=UTF-8', ...init.headers };
  if (init.apiVersion !== false) headers['x-supabase-api-version'] = '2024-01-01';
  if (init.bearer) headers.authorization = `Bearer ${init.bearer}`;
  const res = await fetch(`${t.url}/auth/v1${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
    redirect: 'manual',
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

export const claimsOf = (jwt: string) => decodeJwt(jwt) as Record<string, unknown>;

/**
 * Codes as an authenticator app computes them. Each code is for the current step or the next,
 * both inside the server's ±1 window whichever side of a step boundary the request lands, and
 * later than the last code given, since the server takes each step once.
 */
export function authenticator(secret: string) {
  const totp = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });
  let last = -1;
  return {
    next(): string {
      const now = totp.counter();
      const step = Math.max(last + 1, now);
      if (step > now + 1) throw new Error('a test may use at most two codes of one factor');
      last = step;
      return totp.generate({ timestamp: step * 30_000 });
    },
    /** The code given last, for replay tests. */
    again: () => totp.generate({ timestamp: last * 30_000 }),
  };
}
