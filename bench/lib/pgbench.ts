import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadResult } from './load';
import { percentile } from './stats';

const PGBENCH = process.env.PGBENCH ?? '/usr/bin/pgbench';

export type PgbenchOptions = {
  /** The script's variables at the start of each client (pgbench -D). */
  vars?: Record<string, string>;
  /** `prepared` (the default): parsed and planned once per client; `extended`: every time. */
  mode?: 'prepared' | 'extended';
};

/**
 * Runs one pgbench script (`clients` connections, 2 threads: the machine's cores) and returns
 * transactions/s and latency percentiles from pgbench's per-transaction log.
 */
export async function runPgbench(url: string, script: string, clients: number, seconds: number, warmup = 0, opts: PgbenchOptions = {}): Promise<LoadResult> {
  if (warmup > 0) await runPgbench(url, script, clients, warmup, 0, opts);
  const dir = mkdtempSync(join(tmpdir(), 'nh-pgbench-'));
  try {
    writeFileSync(join(dir, 'script.sql'), script);
    const u = new URL(url);
    const vars = Object.entries(opts.vars ?? {}).flatMap(([k, v]) => ['-D', `${k}=${v}`]);
    const args = [
      '-n',
      '-M',
      opts.mode ?? 'prepared',
      '-c',
      String(clients),
      '-j',
      '2',
      '-T',
      String(seconds),
      '-f',
      join(dir, 'script.sql'),
      '-l',
      '--log-prefix',
      join(dir, 'log'),
      ...vars,
    ];
    const conn = ['-h', decodeURIComponent(u.hostname), '-p', u.port || '5432', '-U', decodeURIComponent(u.username) || 'postgres', u.pathname.slice(1)];
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn(PGBENCH, [...args, ...conn], { stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      child.stdout.on('data', (d: Buffer) => (text += d.toString()));
      child.stderr.on('data', (d: Buffer) => (text += d.toString()));
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`pgbench exited with ${code}:\n${text}`))));
    });
    const tps = Number(/tps = ([\d.]+) \(without initial connection time\)/.exec(out)?.[1]);
    const failed = Number(/number of failed transactions: (\d+)/.exec(out)?.[1] ?? 0);
    // Log lines: client_id transaction_no latency_us script_no epoch_s epoch_us.
    const latencies = readdirSync(dir)
      .filter((f) => f.startsWith('log'))
      .flatMap((f) => readFileSync(join(dir, f), 'utf8').trim().split('\n'))
      .map((l) => Number(l.split(' ')[2]) / 1000)
      .sort((a, b) => a - b);
    return { requests: latencies.length, rps: tps, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors: failed };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
