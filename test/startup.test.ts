import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../src/server/paths';
import { TEST_PAYMENTS_NOTICE } from '../src/shared/test-payments';
import { migratedDataFolder } from './helpers/database';
import { spawnServer, type ServerProcess } from './helpers/process';
import { serverEntry } from './helpers/server-build';
import { until } from './helpers/wait';

describe('starting with a bad configuration', () => {
  it('stops with exit code 1 and one line per bad variable, before opening anything', () => {
    const r = spawnSync(process.execPath, [serverEntry('main')], {
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
      const r = spawnSync(process.execPath, [serverEntry('main')], {
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

describe('a fresh npm start on a network (issue 33, item 2)', () => {
  let dir: string;
  let server: ServerProcess | undefined;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'nh-start-'));
  });
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await server?.exited;
    rmSync(dir, { recursive: true, force: true });
  });
  /** npm start as a newcomer runs it: none of the settings below, whatever this shell has. */
  const fresh = {
    HOST: undefined,
    PUBLIC_URL: undefined,
    DATABASE_URL: undefined,
    PAYMENTS_PROVIDER: undefined,
    PAYPAL_CLIENT_ID: undefined,
    LOG_LEVEL: 'info',
  };
  // A first start migrates a new data folder: on a loaded 2-core machine that can take minutes.
  const START_TIMEOUT_MS = 180_000;
  /** Starts npm start with `env`, runs `check` on it, and stops it whatever `check` finds; the folder is migrated once. */
  const serving = async (env: Record<string, string>, check: (s: ServerProcess) => Promise<void>) => {
    server = await spawnServer({ ...fresh, DATA_DIR: join(dir, 'data'), ...env }, { timeoutMs: START_TIMEOUT_MS });
    try {
      await check(server);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
      server = undefined;
    }
  };
  const config = async (s: ServerProcess) => (await (await fetch(`${s.url}/config.json`)).json()) as { testPayments: boolean };

  it(
    'listens on loopback only without PUBLIC_URL, unreachable from any other address of this machine, with no TEST PAYMENTS line',
    async () => {
      let output = () => '';
      await serving({}, async (s) => {
        output = s.output;
        const port = new URL(s.url).port;
        const listening = execFileSync('ss', ['-ltnH'], { encoding: 'utf8' })
          .split('\n')
          .map((line) => line.trim().split(/\s+/)[3])
          .filter((local): local is string => local !== undefined && local.endsWith(`:${port}`))
          .map((local) => local.slice(0, -(port.length + 1)));
        expect(listening.length).toBeGreaterThan(0);
        for (const address of listening) expect(['127.0.0.1', '[::1]']).toContain(address);
        // Every other address this machine has refuses the connection: no customer elsewhere reaches it.
        // (Link-local IPv6 addresses need an interface to be dialled, and reach no other network.)
        const others = Object.values(networkInterfaces())
          .flat()
          .filter((i) => i !== undefined && !i.internal && !i.address.startsWith('fe80:'))
          .map((i) => i!.address);
        for (const address of others) expect(await connects(address, Number(port)), address).toBe(false);
        expect(await config(s)).toMatchObject({ testPayments: false });
      });
      expect(output()).toContain('"msg":"listening"');
      expect(output()).not.toContain(TEST_PAYMENTS_NOTICE);
    },
    START_TIMEOUT_MS * 2,
  );

  it(
    'says "TEST PAYMENTS: credit is free" at the start, and to the web app, when PAYMENTS_PROVIDER=test is chosen',
    async () => {
      await serving({ PAYMENTS_PROVIDER: 'test' }, async (s) => {
        await until('the TEST PAYMENTS line', () => s.output().split('\n').includes(TEST_PAYMENTS_NOTICE), 10_000);
        expect(await config(s)).toMatchObject({ testPayments: true });
      });
    },
    START_TIMEOUT_MS * 2,
  );

  it('refuses the free test provider on every interface (HOST=0.0.0.0) unless it is chosen, and HOST=0.0.0.0 without PUBLIC_URL', () => {
    const run = (env: Record<string, string>) =>
      spawnSync(process.execPath, [serverEntry('main')], {
        cwd: ROOT,
        env: { PATH: process.env.PATH, DATA_DIR: join(dir, 'refused'), PORT: '0', LOG_LEVEL: 'silent', ...env },
        encoding: 'utf8',
        timeout: 60_000,
      });
    // compose.yaml's old default: published on every interface, with a PUBLIC_URL of localhost.
    const open = run({ HOST: '0.0.0.0', PUBLIC_URL: 'http://localhost:8080' });
    expect(open.status).toBe(1);
    expect(open.stderr.trim().split('\n')).toEqual([
      'Invalid configuration:',
      '  - PAYMENTS_PROVIDER must be set when HOST (0.0.0.0) is not a loopback address: paypal, with the PAYPAL_* settings, or test, whose TEST payments add credit without taking any money',
    ]);
    const noAddress = run({ HOST: '0.0.0.0', PAYMENTS_PROVIDER: 'test' });
    expect(noAddress.status).toBe(1);
    expect(noAddress.stderr.trim().split('\n')).toEqual([
      'Invalid configuration:',
      '  - PUBLIC_URL must be set when HOST (0.0.0.0) is not a loopback address: it is the address links and the browser use',
    ]);
  }, 150_000);
});

/** Whether a TCP connection to address:port is accepted. */
function connects(address: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: address, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('starting with nodes it cannot run', () => {
  let dir: string;
  let engine: Server;
  let socket: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nh-start-'));
    await migratedDataFolder(join(dir, 'data'));
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

  /** A start on a loaded 2-core machine can take a minute. */
  const START_TIMEOUT_MS = 120_000;
  // Asynchronous: the stand-in engine answers from this process.
  function start(env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [serverEntry('main')], {
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
      // An operator of machines of their own is told that they need no engine at all.
      const machinesToo = await start({
        PROVISIONER: 'docker',
        DOCKER_HOST: `unix://${join(dir, 'nothing.sock')}`,
        MACHINE_PROVIDER: 'hetzner',
        HCLOUD_TOKEN: 'hcloud-token-0123456789abcdef',
      });
      expect(machinesToo.status).toBe(1);
      expect(lastLine(machinesToo.stderr)).toMatch(
        /no Docker Engine answers at .*; or set SWARM=off to sell only the products that run on machines of their own$/,
      );
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
