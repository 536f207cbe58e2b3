import { z } from 'zod';
import { defineTask } from '../task';

/** How long the API may take to answer the probe before the minute counts as down. */
export const PROBE_TIMEOUT_MS = 5000;

/**
 * Every minute, the server's own health check (/healthz: the HTTP server, then a statement through
 * its pool) asked at PUBLIC_URL, as a customer's request would reach it, timed and kept a minute a
 * row for the status page's API row (migration 0054). A failed probe is a result, not a failed job.
 */
export const probeApi = defineTask({
  name: 'probe-api',
  lane: 'upkeep',
  payload: z.object({}),
  async run(_payload, { db, publicUrl, logger }) {
    const started = performance.now();
    let ok = false;
    try {
      const res = await fetch(new URL('/healthz', publicUrl), { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS), redirect: 'manual' });
      ok = res.status === 200;
      await res.body?.cancel();
    } catch (e) {
      logger.warn('the API did not answer its probe', { error: e instanceof Error ? e.message : String(e) });
    }
    await db.query('select private.record_api_probe($1, $2)', [ok, Math.round(performance.now() - started)]);
  },
});
