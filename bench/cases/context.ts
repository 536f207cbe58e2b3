import type { Session } from '../lib/http';
import type { RunningServer } from '../lib/server';
import type { Target } from '../lib/targets';

/** A server under test and the signed-in actors of the cases. */
export type Live = {
  target: Target;
  server: RunningServer;
  apikey: string;
  reader: Session;
  admin: Session;
  creators: Session[];
  refreshers: Session[];
};

/** How long each load runs, and its warm-up (JIT, pool and plan caches), in seconds. */
export type Timing = { seconds: number; warmup: number };

/** The headers a browser's supabase-js sends on a REST call, with `token` as the bearer. */
export function apiHeaders(live: Live, token: string): Record<string, string> {
  return { apikey: live.apikey, authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-client-info': 'supabase-js-web/2' };
}
