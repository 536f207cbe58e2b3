import { fetchAppConfig } from './app-config';
import { getSupabase } from './supabase';

/**
 * Calls one of our /auth/v1 endpoints that supabase-js has no method for (recovery codes), as the
 * signed-in user. Failures throw the server's message, as supabase-js's errors carry it.
 */
export async function authRequest<T>(path: string, body?: Record<string, unknown>): Promise<T> {
  const [supabase, config] = await Promise.all([getSupabase(), fetchAppConfig()]);
  const { data } = await supabase.auth.getSession();
  if (!data.session) throw new Error('You are signed out. Sign in again to continue.');
  const res = await fetch(`${config.supabaseUrl}/auth/v1${path}`, {
    method: body ? 'POST' : 'GET',
    headers: {
      apikey: config.supabaseAnonKey,
      authorization: `Bearer ${data.session.access_token}`,
      'content-type': 'application/json',
      'x-supabase-api-version': '2024-01-01',
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) throw new Error(typeof json.message === 'string' ? json.message : 'An unknown error occurred');
  return json as T;
}
