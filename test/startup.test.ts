import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../src/server/paths';

describe('starting with a bad configuration', () => {
  it('stops with exit code 1 and one line per bad variable, before opening anything', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, PORT: 'abc', DATABASE_URL: 'mysql://root:secret@db/x', LOG_LEVEL: 'loud' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('Invalid configuration:');
    expect(r.stderr).toContain('  - PORT must be a whole number from 0 to 65535, got "abc"');
    expect(r.stderr).toContain('  - DATABASE_URL must be a postgres: or postgresql: URL, got "mysql://root:***@db/x"');
    expect(r.stderr).toMatch(/ {2}- LOG_LEVEL: /);
    expect(r.stderr).not.toContain('secret');
  });

  it('refuses to run the free test payment provider on a public site unless it is chosen', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nh-start-'));
    try {
      const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
        cwd: ROOT,
        env: { PATH: process.env.PATH, NODE_ENV: 'production', PUBLIC_URL: 'https://nodeharbor.example', DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'silent' },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(r.status).toBe(1);
      expect(r.stderr.trim().split('\n')).toEqual([
        'Invalid configuration:',
        '  - PAYMENTS_PROVIDER must be set when PUBLIC_URL (https://nodeharbor.example) is not a local address: paypal, with the PAYPAL_* settings, or test, whose TEST payments add credit without taking any money',
      ]);
      expect(r.stdout).not.toContain('password');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('starting with nodes it cannot run', () => {
  let dir: string;
  let engine: Server;
  let socket: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nh-start-'));
    socket = join(dir, 'docker.sock');
    // A stand-in Docker Engine that answers as one outside Swarm mode does.
    engine = createServer((req, res) => {
      res.setHeader('content-type', req.url?.includes('_ping') ? 'text/plain' : 'application/json');
      if (req.url?.includes('_ping')) return res.end('OK');
      if (req.url?.endsWith('/info')) return res.end(JSON.stringify({ ID: 'x', Swarm: { LocalNodeState: 'inactive', ControlAvailable: false } }));
      res.statusCode = 404;
      res.end(JSON.stringify({ message: 'page not found' }));
    });
    await new Promise<void>((r) => engine.listen(socket, r));
  });
  afterAll(async () => {
    await new Promise((r) => engine.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  /** A first start migrates a new data folder: on a loaded 2-core machine that can take a minute. */
  const START_TIMEOUT_MS = 120_000;
  // Asynchronous: the stand-in engine answers from this process.
  function start(env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
        cwd: ROOT,
        env: { PATH: process.env.PATH, DATA_DIR: join(dir, 'data'), PORT: '0', LOG_LEVEL: 'silent', ...env },
        timeout: START_TIMEOUT_MS,
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('exit', (status) => resolve({ status, stdout, stderr }));
    });
  }
  const lastLine = (stderr: string) => stderr.trim().split('\n').at(-1);

  it(
    'stops with one line saying what to run when no Docker Engine answers, or it is not a Swarm manager, before it prints the admin password',
    async () => {
      const none = await start({ PROVISIONER: 'docker', DOCKER_HOST: `unix://${join(dir, 'nothing.sock')}` });
      expect(none.status).toBe(1);
      expect(lastLine(none.stderr)).toMatch(/^NodeHarbor failed to start: PROVISIONER=docker: no Docker Engine answers at unix:\/\/.*nothing\.sock/);
      expect(none.stdout).not.toContain('password');
      const notManager = await start({ PROVISIONER: 'docker', DOCKER_HOST: `unix://${socket}` });
      expect(notManager.status).toBe(1);
      expect(lastLine(notManager.stderr)).toContain('is not a Swarm manager: run `docker swarm init`');
    },
    START_TIMEOUT_MS * 2,
  );

  it(
    'stops when NODE_IMAGES names a product that does not exist',
    async () => {
      const r = await start({ NODE_IMAGES: '{"TOWNSTARX":"registry.example.com/x:1"}' });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('NODE_IMAGES names TOWNSTARX, which no product has as its base_product_code (known: MASTERNODE, TOWNSTAR)');
    },
    START_TIMEOUT_MS,
  );
});
