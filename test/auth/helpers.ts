import { decodeJwt } from 'jose';
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
