import { queryOptions, useQuery } from '@tanstack/react-query';

/** What the server tells the browser at run time (GET /config.json), so one build serves any deployment. */
export type AppConfig = {
  supabaseUrl: string;
  supabaseAnonKey: string;
  registrationEnabled: boolean;
  devHostSuffixes: string[];
  statusUrl: string | null;
};

let pending: Promise<AppConfig> | undefined;

export function fetchAppConfig(): Promise<AppConfig> {
  pending ??= fetch('/config.json').then((r) => {
    if (!r.ok) throw new Error(`config.json answered ${r.status}`);
    return r.json() as Promise<AppConfig>;
  });
  // A failed fetch must not stick: the next caller tries again.
  pending.catch(() => (pending = undefined));
  return pending;
}

export const appConfigQuery = queryOptions({ queryKey: ['app-config'], queryFn: fetchAppConfig, staleTime: Infinity });

export function useAppConfig() {
  return useQuery(appConfigQuery);
}
