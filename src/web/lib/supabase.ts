import type { SupabaseClient } from '@supabase/supabase-js';
import { fetchAppConfig } from './app-config';
import { fetchRememberingRetryAfter } from './retry-after';

/** Where supabase-js keeps the session; read directly to know, without loading the library, if anyone is signed in. */
export const AUTH_STORAGE_KEY = 'nodeharbor-auth';

let client: Promise<SupabaseClient> | undefined;
const readyListeners = new Set<(supabase: SupabaseClient) => void>();

/**
 * The one supabase-js client, configured from /config.json. The library is loaded on first use
 * so that public pages for signed-out visitors never download it.
 */
export function getSupabase(): Promise<SupabaseClient> {
  client ??= Promise.all([import('@supabase/supabase-js'), fetchAppConfig()]).then(([{ createClient }, config]) => {
    // Spec §4: a persisted session, refreshed automatically, never read from the URL by the library.
    const supabase = createClient(config.supabaseUrl, config.supabaseAnonKey, {
      auth: { persistSession: true, autoRefreshToken: true, detectSessionInUrl: false, storageKey: AUTH_STORAGE_KEY },
      global: { fetch: fetchRememberingRetryAfter },
    });
    for (const listener of readyListeners) listener(supabase);
    return supabase;
  });
  client.catch(() => (client = undefined));
  return client;
}

/** Calls back once the client exists (now, if it already does). Returns an unsubscribe function. */
export function onSupabaseReady(listener: (supabase: SupabaseClient) => void): () => void {
  readyListeners.add(listener);
  void client?.then(listener, () => undefined);
  return () => readyListeners.delete(listener);
}

export function hasStoredSession(): boolean {
  try {
    return localStorage.getItem(AUTH_STORAGE_KEY) !== null;
  } catch {
    return false;
  }
}
