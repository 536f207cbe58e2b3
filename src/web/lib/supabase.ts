import { createClient, type SupabaseClient } from '@supabase/supabase-js';

export type AppConfig = {
  supabaseUrl: string;
  supabaseAnonKey: string;
  registrationEnabled: boolean;
  devHostSuffixes: string[];
  statusUrl: string | null;
};

let client: Promise<{ config: AppConfig; supabase: SupabaseClient }> | undefined;

/** The one supabase-js client, configured from /config.json so one build serves any deployment. */
export function getSupabase(): Promise<{ config: AppConfig; supabase: SupabaseClient }> {
  client ??= fetch('/config.json')
    .then((r) => r.json() as Promise<AppConfig>)
    .then((config) => ({
      config,
      // Spec §4: a persisted session, no auto-detection of sessions in the URL.
      supabase: createClient(config.supabaseUrl, config.supabaseAnonKey, {
        auth: { persistSession: true, autoRefreshToken: true, detectSessionInUrl: false },
      }),
    }));
  return client;
}
