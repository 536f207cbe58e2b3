import { anonKey, signInAll, type Session } from '../lib/http';
import { runLoad, type Driver, type LoadResult, type Scenario } from '../lib/load';
import { actors } from '../lib/seed';
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

/** A load's connections and, to hold it below full speed, its requests per second over them all. */
/** `driver`: autocannon instead of wrk for a closed loop too, to compare the two (bench/drivers.ts). */
export type Pace = { connections?: number; rate?: number; driver?: Driver };

/** How long each load runs, and its warm-up (JIT, pool and plan caches), in seconds. */
export type Timing = { seconds: number; warmup: number };

/** A case's load on the live server: `scenario` for `t`, on `connections` unless `pace` says otherwise. */
export function loadOn(live: Live, t: Timing, pace: Pace, connections: number, scenario: Scenario): Promise<LoadResult> {
  return runLoad({
    url: live.server.url,
    connections: pace.connections ?? connections,
    rate: pace.rate,
    ...(pace.driver ? { driver: pace.driver } : {}),
    seconds: t.seconds,
    warmupSeconds: t.warmup,
    scenario,
  });
}

/** The headers a browser's supabase-js sends on a REST call, with `token` as the bearer. */
export function apiHeaders(live: Live, token: string): Record<string, string> {
  return { apikey: live.apikey, authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-client-info': 'supabase-js-web/2' };
}

/** Signs every actor in on `server`: the sessions the cases act with. */
export async function signInActors(server: RunningServer, target: Target): Promise<Live> {
  const apikey = await anonKey(server.url);
  const [reader, admin, ...rest] = await signInAll(server.url, apikey, [actors.reader, actors.admin, ...actors.creators, ...actors.refreshers]);
  return {
    target,
    server,
    apikey,
    reader: reader!,
    admin: admin!,
    creators: rest.slice(0, actors.creators.length),
    refreshers: rest.slice(actors.creators.length),
  };
}
