import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { ROOT } from '../../src/server/paths';
import { freePort } from '../../test/helpers/process';

/** The resident memory of a process and its children, in kB; a process that is gone counts 0. */
function treeRssKb(pid: number): number {
  try {
    const own = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    return own + children.reduce((sum, child) => sum + treeRssKb(child), 0);
  } catch {
    return 0;
  }
}

export type RunningServer = {
  url: string;
  pid: number;
  /** Seconds from spawning `npm start`'s script to the first 200 from /healthz. */
  startSeconds: number;
  /** Resident memory of the server now, in MB: its process and the HTTP processes it runs. */
  rssMb(): number;
  stop(): Promise<void>;
};

/** The floor of case 1 (bench/lib/floor-server.ts), started with the server's environment as the server is. */
export const FLOOR = ['--import', 'tsx', 'bench/lib/floor-server.ts'];

/**
 * Starts the server the way `npm start` does (scripts/start.mjs: build check, then dist/server/main.js
 * in the same process, so the pid is the server's). The worker is off and logs are warnings only,
 * so that the load measures the request path. Rate limits are off, and one caller may use the whole
 * pool (DATABASE_CLIENT_SLOTS), because each case's load comes from one address or one user.
 */
export async function startServer(env: Record<string, string>, opts: { wrapper?: string[]; entry?: string[] } = {}): Promise<RunningServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  const started = performance.now();
  // A wrapper (valgrind, in bench:instructions) runs node under it, with the same arguments.
  const [command, ...args] = [...(opts.wrapper ?? []), process.execPath, ...(opts.entry ?? ['scripts/start.mjs'])];
  const child: ChildProcess = spawn(command!, args, {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: url,
      LOG_LEVEL: 'warn',
      RUN_WORKER: 'false',
      RATE_LIMITS_ENABLED: 'false',
      DATABASE_CLIENT_SLOTS: '20',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  // A bench that fails leaves no server behind (its HTTP processes stop with their primary).
  const orphan = () => child.kill('SIGTERM');
  process.once('exit', orphan);
  void exited.then(() => process.off('exit', orphan));
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}:\n${output}`);
    if (performance.now() - started > 300_000) throw new Error(`the server did not become healthy:\n${output}`);
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const startSeconds = (performance.now() - started) / 1000;
  return {
    url,
    pid: child.pid!,
    startSeconds,
    rssMb: () => treeRssKb(child.pid!) / 1024,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
