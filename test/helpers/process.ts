import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { ROOT } from '../../src/server/paths';
import { serverEntry } from './server-build';
import { until } from './wait';

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export type ServerProcess = { child: ChildProcess; url: string; output: () => string; exited: Promise<number | null> };

/**
 * Runs the real server as its own process (the built `main.js`, server-build.ts), as `npm start`
 * does after its build, and waits until /healthz answers 200. A variable given as undefined is
 * left unset.
 */
export async function spawnServer(env: Record<string, string | undefined>, opts: { timeoutMs?: number } = {}): Promise<ServerProcess> {
  const port = await freePort();
  let out = '';
  const child = spawn(process.execPath, [serverEntry('main')], {
    cwd: ROOT,
    // The embedded deadline as startTestServer has it: the shared machine is slow, not the statements.
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', EMBEDDED_STATEMENT_TIMEOUT_MS: '5000', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const url = `http://127.0.0.1:${port}`;
  const healthy = async () => {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${out}`);
    try {
      return (await fetch(`${url}/healthz`)).status === 200;
    } catch {
      return false; // not listening yet
    }
  };
  await until('the server to answer /healthz', healthy, opts.timeoutMs ?? 60_000, 100).catch((e: unknown) => {
    if (child.exitCode !== null) throw e;
    child.kill('SIGKILL');
    throw new Error(`server did not become healthy:\n${out}`);
  });
  return { child, url, output: () => out, exited };
}

/** The worker as the image runs it (the built `worker.js`, server-build.ts), once it says it started. */
export async function spawnWorkerProcess(env: Record<string, string>): Promise<{ child: ChildProcess; exited: Promise<number | null> }> {
  let out = '';
  const child = spawn(process.execPath, [serverEntry('worker')], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const started = () => {
    if (child.exitCode !== null) throw new Error('exited');
    return out.includes('worker started');
  };
  await until('the worker to say it started', started, 30_000, 100).catch(() => {
    child.kill('SIGKILL');
    throw new Error(`the worker did not start:\n${out}`);
  });
  return { child, exited };
}
