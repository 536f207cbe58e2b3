// Case 8: POST /auth/v1/token?grant_type=password, against the same number of bcrypt verifications
// (the server's own verifyPassword, on libuv's thread pool) run alone in this process: a sign-in
// cannot go faster than its password check, and the check is nearly all of its CPU.
import { hashPassword, verifyPassword } from '../../src/server/auth/passwords';
import type { LoadResult } from '../lib/load';
import { actors, PASSWORD } from '../lib/seed';
import { percentile } from '../lib/stats';
import { loadOn, type Live, type Pace, type Timing } from './context';

export const CONNECTIONS = 16;

export function loadSignIn(live: Live, t: Timing, pace: Pace = {}): Promise<LoadResult> {
  return loadOn(live, t, pace, CONNECTIONS, {
    kind: 'fixed',
    method: 'POST',
    path: '/auth/v1/token?grant_type=password',
    headers: { apikey: live.apikey, 'content-type': 'application/json' },
    body: JSON.stringify({ email: actors.signer, password: PASSWORD }),
  });
}

/** `CONNECTIONS` verifications at a time for `t.seconds`, after `t.warmup`: what the thread pool does alone. */
export async function ceilingSignIn(t: Timing): Promise<LoadResult> {
  const hash = await hashPassword(PASSWORD);
  const latencies: number[] = [];
  let errors = 0;
  const loop = async (until: number, record: boolean) => {
    while (performance.now() < until) {
      const started = performance.now();
      if (!(await verifyPassword(PASSWORD, hash))) errors++;
      if (record) latencies.push(performance.now() - started);
    }
  };
  const warm = performance.now() + t.warmup * 1000;
  await Promise.all(Array.from({ length: CONNECTIONS }, () => loop(warm, false)));
  const start = performance.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, () => loop(start + t.seconds * 1000, true)));
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    rps: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors,
  };
}
