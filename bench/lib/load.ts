import { spawn } from 'node:child_process';
import { ROOT } from '../../src/server/paths';
import { runWrk } from './wrk';

type Common = { method: 'GET' | 'POST'; path: string; headers: Record<string, string> };

/** What one load run sends; functions cannot cross a process boundary, so scenarios are named. */
export type Scenario =
  | (Common & { kind: 'fixed'; body?: string })
  /** POST refresh_token grants along chains of rotation: 2 × connections sessions (warm-up, run). */
  | (Common & { kind: 'refresh-chain'; tokens: string[] })
  /** POST create_service_securely with a new name each time, one request per user (`tokens`) at a time. */
  | (Common & { kind: 'create-service'; tokens: string[]; args: Record<string, unknown> });

export type Driver = 'wrk' | 'autocannon';

/**
 * `rate`: requests per second over all connections (autocannon's overallRate); unset, as fast as
 * answered. `driver`: which generator runs a closed loop (wrk unless said).
 */
export type LoadSpec = { url: string; connections: number; seconds: number; warmupSeconds: number; scenario: Scenario; rate?: number; driver?: Driver };

/** Latencies in milliseconds; `errors` counts connection errors, timeouts and error statuses. */
export type LoadResult = { requests: number; rps: number; p50: number; p99: number; errors: number };

/**
 * Runs one load: closed loops with wrk (bench/lib/wrk.ts), which costs the machine about what
 * pgbench does; a load held to a rate with autocannon, which wrk cannot hold to one.
 */
export function runLoad(spec: LoadSpec): Promise<LoadResult> {
  return spec.rate === undefined && spec.driver !== 'autocannon' ? runWrk(spec) : runAutocannon(spec);
}

/** Runs autocannon in a child process (bench/lib/drive.ts) and returns its summary. */
function runAutocannon(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/lib/drive.ts', JSON.stringify(spec)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`the load generator exited with ${code}`));
      else resolve(JSON.parse(out) as LoadResult);
    });
  });
}
