import type { LoadResult } from './load';
import { percentile } from './stats';

/**
 * Calls `fn` back to back for `seconds` and measures each call: the ceiling of an in-process
 * database (PGlite runs one statement at a time, so more callers would only queue).
 */
export async function runInProcess(seconds: number, fn: (i: number) => Promise<unknown>): Promise<LoadResult> {
  for (let i = 0; i < 50; i++) await fn(-1 - i);
  const latencies: number[] = [];
  const start = performance.now();
  const end = start + seconds * 1000;
  let errors = 0;
  for (let i = 0; performance.now() < end; i++) {
    const t = performance.now();
    await fn(i).catch(() => errors++);
    latencies.push(performance.now() - t);
  }
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
