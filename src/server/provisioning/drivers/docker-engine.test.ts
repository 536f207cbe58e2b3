import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { checkSwarmManager, connectDocker } from './docker-engine';

const dir = mkdtempSync(join(tmpdir(), 'nh-docker-engine-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Where a client built by connectDocker will dial (docker-modem's settings). */
const target = (opts: Parameters<typeof connectDocker>[0]) => {
  const m = (connectDocker(opts) as unknown as { modem: Record<string, unknown> }).modem;
  return { socketPath: m.socketPath, host: m.host, port: m.port, protocol: m.protocol, tls: Boolean(m.ca && m.cert && m.key) };
};

describe('connectDocker', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const k of ['DOCKER_HOST', 'DOCKER_TLS_VERIFY', 'DOCKER_CERT_PATH']) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  });

  it('dials the local socket by default, or the DOCKER_HOST it is given, as the Docker CLI does', () => {
    expect(target({ tlsVerify: false })).toMatchObject({ socketPath: '/var/run/docker.sock', host: undefined });
    expect(target({ host: 'unix:///run/user/1000/docker.sock', tlsVerify: false })).toMatchObject({
      socketPath: '/run/user/1000/docker.sock',
      host: undefined,
    });
    expect(target({ host: 'tcp://swarm.example:2375', tlsVerify: false })).toEqual({
      socketPath: undefined,
      host: 'swarm.example',
      port: '2375',
      protocol: 'http',
      tls: false,
    });
    expect(target({ host: 'tcp://10.0.0.5', tlsVerify: false })).toMatchObject({ host: '10.0.0.5', port: '2375', protocol: 'http' });
    expect(() => connectDocker({ host: 'ssh://ops@swarm.example', tlsVerify: false })).toThrow(
      'DOCKER_HOST must be unix:///path/to/docker.sock or tcp://host:port',
    );
  });

  it('speaks TLS with ca.pem, cert.pem and key.pem of the certificate folder when told to verify', () => {
    for (const f of ['ca.pem', 'cert.pem', 'key.pem']) writeFileSync(join(dir, f), `-----BEGIN ${f}-----\n`);
    expect(target({ host: 'tcp://swarm.example:2376', tlsVerify: true, certPath: dir })).toEqual({
      socketPath: undefined,
      host: 'swarm.example',
      port: '2376',
      protocol: 'https',
      tls: true,
    });
    expect(target({ host: 'tcp://swarm.example', tlsVerify: true, certPath: dir })).toMatchObject({ port: '2376' });
    expect(() => connectDocker({ host: 'tcp://swarm.example:2376', tlsVerify: true, certPath: join(dir, 'none') })).toThrow(/ENOENT.*ca\.pem/);
  });

  it('goes where it is told even when the process environment names another engine', () => {
    // docker-modem reads these itself; only what env.ts passed may count.
    process.env.DOCKER_HOST = 'tcp://elsewhere.example:2376';
    process.env.DOCKER_TLS_VERIFY = '1';
    expect(target({ host: 'unix:///var/run/docker.sock', tlsVerify: false })).toEqual({
      socketPath: '/var/run/docker.sock',
      host: undefined,
      port: undefined,
      protocol: 'http',
      tls: false,
    });
    expect(target({ host: 'tcp://swarm.example:2375', tlsVerify: false })).toMatchObject({ host: 'swarm.example', protocol: 'http' });
  });
});

describe('checkSwarmManager', () => {
  const servers: Server[] = [];
  afterAll(() => servers.forEach((s) => s.close()));
  /** A stand-in engine on a Unix socket that answers /_ping and /info as dockerd does, with this Swarm state. */
  const engine = async (swarm: { LocalNodeState: string; ControlAvailable: boolean }) => {
    const socket = join(dir, `engine-${servers.length}.sock`);
    const server = createServer((req, res) => {
      if (req.url?.endsWith('/_ping')) return res.end('OK');
      if (req.url?.endsWith('/info')) return res.setHeader('content-type', 'application/json').end(JSON.stringify({ ServerVersion: '20.10.24', Swarm: swarm }));
      res.statusCode = 404;
      res.end('{"message":"page not found"}');
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(socket, r));
    return `unix://${socket}`;
  };
  const check = (host: string) => checkSwarmManager(connectDocker({ host, tlsVerify: false }), host);

  it('passes a Swarm manager', async () => {
    await expect(check(await engine({ LocalNodeState: 'active', ControlAvailable: true }))).resolves.toBeUndefined();
  });

  it('says in one line what to run when no engine answers, or it is not a manager', async () => {
    const none = `unix://${join(dir, 'nothing.sock')}`;
    const noAnswer = await check(none).then(
      () => undefined,
      (e: Error) => e.message,
    );
    expect(noAnswer).toMatch(/^PROVISIONER=docker: no Docker Engine answers at unix:\/\/\/.*nothing\.sock \(.*\): start dockerd, or set DOCKER_HOST/);
    const inactive = await engine({ LocalNodeState: 'inactive', ControlAvailable: false });
    const notInSwarm = await check(inactive).then(
      () => undefined,
      (e: Error) => e.message,
    );
    expect(notInSwarm).toBe(
      `PROVISIONER=docker: the Docker Engine at ${inactive} is not a Swarm manager: run \`docker swarm init\` (or point DOCKER_HOST at a manager)`,
    );
    const worker = await engine({ LocalNodeState: 'active', ControlAvailable: false });
    const notManager = await check(worker).then(
      () => undefined,
      (e: Error) => e.message,
    );
    expect(notManager).toMatch(/is a Swarm worker, not a manager: point DOCKER_HOST at a manager, or run `docker node promote <this node>` on a manager$/);
    for (const line of [noAnswer, notInSwarm, notManager]) expect(line).not.toContain('\n');
  });
});
