import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jwtVerify } from 'jose';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { until } from '../helpers/wait';
import { importOfflineNodeBase } from './offline-node-base';

// NodeHarbor's own image (Dockerfile), built offline from a base made of this machine's node and
// npm, started on the embedded database and against PostgreSQL as compose.yaml runs it; and the
// compose and Swarm stack files checked. Everything made here is removed, also on failure.

const ROOT = join(import.meta.dirname, '../..');
const RUN = randomBytes(4).toString('hex');
const BASE = `nodeharbor-test-base:offline-${RUN}`;
const IMAGE = `nodeharbor-test/app:${RUN}`;
const NAME = `nodeharbor-image-test-${RUN}`;
const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const DATABASE = `nodeharbor_image_${RUN}`;

const made = { containers: [] as string[], volumes: [] as string[], database: false };
const volumes = () => new Set(docker(['volume', 'ls', '-q']).split('\n').filter(Boolean));
const work = mkdtempSync(join(tmpdir(), 'nh-image-test-'));

function docker(args: string[], env: Record<string, string> = {}): string {
  return execFileSync('docker', args, { encoding: 'utf8', env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** Runs a container of ours, recorded for removal whatever happens. */
function start(name: string, args: string[], command: string[] = []): string {
  made.containers.push(name);
  return docker(['run', '-d', '--name', name, ...args, IMAGE, ...command]);
}

/** Waits for the image's HEALTHCHECK to say healthy; throws with the logs if the container stops or is unhealthy. */
async function healthy(name: string): Promise<void> {
  await until(
    `${name} to be healthy`,
    () => {
      const [state, health] = docker(['inspect', '--format', '{{.State.Status}} {{.State.Health.Status}}', name]).split(' ');
      if (state !== 'running' || health === 'unhealthy') {
        throw new Error(`${name} is ${state}, ${health}:\n${spawnSync('docker', ['logs', name], { encoding: 'utf8' }).stderr}`);
      }
      return health === 'healthy';
    },
    180_000,
    1000,
  );
}

/** Runs node inside the container, as its own user, and returns what it printed. */
const inside = (name: string, script: string) => docker(['exec', name, 'node', '-e', script]);

/** The user the container's PID 1 (the server or the worker itself) runs as, from /proc. */
const pid1Uid = (name: string) => inside(name, "process.stdout.write(/^Uid:\\s+(\\d+)/m.exec(require('fs').readFileSync('/proc/1/status', 'utf8'))[1])");

/** Compose's ${NAME:-default}, as an operator's shell without those variables gives it. */
const interpolate = (v: string) => v.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');

/**
 * The images of this run: the base and every image built on it (the build's intermediate ones
 * too), children first. No one else builds on a base imported under this run's name.
 */
function ourImages(): string[] {
  const ids = docker(['images', '-aq', '--no-trunc']).split('\n').filter(Boolean);
  if (!ids.length) return [];
  const parent = new Map(
    docker(['image', 'inspect', '--format', '{{.Id}} {{.Parent}}', ...ids])
      .split('\n')
      .map((l) => l.split(' ') as [string, string]),
  );
  const base = spawnSync('docker', ['image', 'inspect', '--format', '{{.Id}}', BASE], { encoding: 'utf8' }).stdout.trim();
  const depth = (id: string): number => (id === base ? 0 : parent.get(id) ? depth(parent.get(id)!) + 1 : -Infinity);
  return [...parent.keys()].filter((id) => depth(id) >= 0).sort((a, b) => depth(b) - depth(a));
}

const built = { seconds: 0, bytes: 0 };

beforeAll(() => {
  importOfflineNodeBase(BASE);
  // The build context: the files git knows, uncommitted ones too, and npm's cache of this
  // machine (hard links where possible), which holds every package of the lockfile once npm
  // install or ci ran here: the image's npm ci then needs no network.
  const context = join(work, 'context');
  mkdirSync(context);
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f && f !== 'node_modules');
  execFileSync('tar', ['-C', ROOT, '--null', '-T', '-', '-cf', join(work, 'context.tar')], { input: files.join('\0') });
  execFileSync('tar', ['-C', context, '-xf', join(work, 'context.tar')]);
  const cache = join(execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim(), '_cacache');
  mkdirSync(join(context, '.npm-cache'));
  if (spawnSync('cp', ['-al', cache, join(context, '.npm-cache/_cacache')]).status !== 0) {
    execFileSync('cp', ['-R', cache, join(context, '.npm-cache/_cacache')]);
  }
  // The classic builder runs the steps after VOLUME in containers that leave anonymous volumes behind.
  const before = volumes();
  const t0 = process.hrtime.bigint();
  const build = spawnSync(
    'docker',
    ['build', '--force-rm', '--build-arg', `NODE_IMAGE=${BASE}`, '--build-arg', 'NPM_CACHE=.npm-cache', '-t', IMAGE, context],
    // The classic builder: BuildKit needs the buildx plugin, which Debian's docker.io lacks.
    { encoding: 'utf8', env: { ...process.env, DOCKER_BUILDKIT: '0' }, maxBuffer: 64 * 1024 * 1024 },
  );
  const dangling = new Set(docker(['volume', 'ls', '-q', '--filter', 'dangling=true']).split('\n'));
  made.volumes.push(...[...volumes()].filter((v) => !before.has(v) && dangling.has(v) && /^[0-9a-f]{64}$/.test(v)));
  if (build.status !== 0) throw new Error(`docker build failed:\n${build.stdout.slice(-4000)}\n${build.stderr.slice(-4000)}`);
  built.seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  built.bytes = Number(docker(['image', 'inspect', '--format', '{{.Size}}', IMAGE]));
  rmSync(context, { recursive: true, force: true });
  console.log(`built ${IMAGE} in ${built.seconds.toFixed(0)} s: ${(built.bytes / 1e6).toFixed(0)} MB`);
}, 45 * 60_000);

afterAll(async () => {
  for (const c of made.containers) spawnSync('docker', ['rm', '-f', '-v', c]);
  for (const v of made.volumes) spawnSync('docker', ['volume', 'rm', v]);
  for (const id of ourImages()) spawnSync('docker', ['rmi', '-f', id]);
  spawnSync('docker', ['rmi', BASE]);
  if (made.database) {
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`drop database if exists ${DATABASE} with (force)`);
    await admin.end();
  }
  rmSync(work, { recursive: true, force: true });
  // vfs copies every layer: removing the images takes minutes on a busy machine.
}, 10 * 60_000);

describe('the image', () => {
  it('holds the build and the production dependencies only, owned by root, and runs as uid 1000', () => {
    const config = JSON.parse(docker(['image', 'inspect', '--format', '{{json .Config}}', IMAGE])) as {
      User: string;
      Volumes: Record<string, unknown>;
      Healthcheck: { Test: string[] };
      Env: string[];
    };
    expect(config.User).toBe('1000:1000');
    expect(Object.keys(config.Volumes)).toEqual(['/data']);
    expect(config.Env).toContain('DATA_DIR=/data');
    // Every interface, as a container must listen to be reached: with PUBLIC_URL only (issue 33, item 2).
    expect(config.Env).toContain('HOST=0.0.0.0');
    expect(config.Healthcheck.Test.join(' ')).toContain('/healthz');
    const files = JSON.parse(
      docker([
        'run',
        '--rm',
        '--entrypoint',
        'node',
        IMAGE,
        '-e',
        `const fs = require('fs'); const has = (p) => fs.existsSync(p); console.log(JSON.stringify({
          server: has('dist/server/main.js') && has('dist/server/worker.js') && has('dist/server/cli.js'),
          web: has('dist/web/index.html'), sql: has('db/migrations'), hono: has('node_modules/hono'), pglite: has('node_modules/@electric-sql/pglite'),
          vite: has('node_modules/vite'), vitest: has('node_modules/vitest'), src: has('src'), cache: has('.npm-cache'),
          appOwner: fs.statSync('dist/server/main.js').uid, dataOwner: fs.statSync('/data').uid }))`,
      ]),
    ) as Record<string, unknown>;
    expect(files).toEqual({
      server: true,
      web: true,
      sql: true,
      hono: true,
      pglite: true,
      vite: false,
      vitest: false,
      src: false,
      cache: false,
      appOwner: 0,
      dataOwner: 1000,
    });
  });

  it('serves on the embedded database, kept on its volume, as a user other than root', async () => {
    const name = `${NAME}-embedded`;
    const volume = `${NAME}-data`;
    made.volumes.push(volume);
    // Without PUBLIC_URL the image does not start: on every interface, links need the site's address.
    const refused = spawnSync('docker', ['run', '--rm', IMAGE], { encoding: 'utf8' });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('PUBLIC_URL must be set when HOST (0.0.0.0) is not a loopback address');
    // On every interface the free test provider runs only when chosen.
    start(name, ['-v', `${volume}:/data`, '-p', '127.0.0.1::8080', '-e', 'PUBLIC_URL=http://localhost:8080', '-e', 'PAYMENTS_PROVIDER=test']);
    await healthy(name);
    const base = `http://${docker(['port', name, '8080/tcp']).split('\n')[0]}`;
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok', database: 'pglite' });
    const home = await fetch(`${base}/`);
    expect(home.status).toBe(200);
    expect(/<title[^>]*>([^<]*)<\/title>/.exec(await home.text())?.[1]).toContain('NodeHarbor');
    expect(pid1Uid(name)).toBe('1000');
    const mounts = JSON.parse(docker(['inspect', '--format', '{{json .Mounts}}', name])) as { Name: string; Destination: string }[];
    expect(mounts).toEqual([expect.objectContaining({ Name: volume, Destination: '/data' })]);
    expect(inside(name, "process.stdout.write(require('fs').readdirSync('/data').join(' '))").split(' ')).toEqual(
      expect.arrayContaining(['pglite', 'secrets.json']),
    );
  });

  it("runs compose.yaml's web server and worker against PostgreSQL, with their secrets from files", async () => {
    const compose = parse(readFileSync(join(ROOT, 'compose.yaml'), 'utf8'), { merge: true }) as Compose;
    const web = compose.services.web!;
    const worker = compose.services.worker!;
    const admin = new pg.Client({ connectionString: PG_URL });
    try {
      await admin.connect();
    } catch (e) {
      throw new Error(`No PostgreSQL answers at ${PG_URL} (set TEST_DATABASE_URL)`, { cause: e });
    }
    await admin.query(`create database ${DATABASE}`);
    made.database = true;
    await admin.end();

    // compose.yaml's URL names its own PostgreSQL: this one is the tests', its password in the file as there.
    const url = new URL(PG_URL);
    const password = decodeURIComponent(url.password) || 'unused-with-trust-auth';
    url.password = '';
    url.pathname = `/${DATABASE}`;
    // The secret files as compose mounts them, read by uid 1000.
    const secrets = join(work, 'secrets');
    mkdirSync(secrets);
    const values = { jwt_secret: randomBytes(32).toString('base64url'), encryption_key: randomBytes(32).toString('base64url'), db_password: password };
    const mounts = Object.entries(values).flatMap(([file, value]) => {
      writeFileSync(join(secrets, file), `${value}\n`, { mode: 0o644 });
      return ['-v', `${join(secrets, file)}:/run/secrets/${file}:ro`];
    });
    const port = await freePort();
    const env = (service: ComposeService) =>
      Object.entries({
        ...service.environment,
        DATABASE_URL: url.toString(),
        PORT: String(port),
        // What compose.yaml requires the operator to give.
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        PAYMENTS_PROVIDER: 'test',
      }).flatMap(([k, v]) => ['-e', `${k}=${interpolate(String(v))}`]);
    // The host's network: the PostgreSQL of the tests listens on the host's loopback.
    start(`${NAME}-web`, ['--network', 'host', ...mounts, ...env(web)]);
    start(`${NAME}-worker`, ['--network', 'host', '--no-healthcheck', ...mounts, ...env(worker)], worker.command);
    await healthy(`${NAME}-web`);

    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(await health.json()).toEqual({ status: 'ok', database: 'postgres' });
    expect(pid1Uid(`${NAME}-web`)).toBe('1000');
    expect(pid1Uid(`${NAME}-worker`)).toBe('1000');
    // The worker started and is still running; the web server runs none.
    await until(
      'the worker to say it started',
      () => {
        const logs = spawnSync('docker', ['logs', `${NAME}-worker`], { encoding: 'utf8' });
        if (`${logs.stdout}${logs.stderr}`.includes('"worker started"')) return true;
        expect(docker(['inspect', '--format', '{{.State.Status}}', `${NAME}-worker`]), logs.stderr).toBe('running');
        return false;
      },
      180_000,
      500,
    );
    const webLogs = spawnSync('docker', ['logs', `${NAME}-web`], { encoding: 'utf8' });
    expect(`${webLogs.stdout}${webLogs.stderr}`).not.toContain('"worker started"');
    // The secrets came from the files: a token signed with the file's JWT secret is one the server takes.
    const anon = (await (await fetch(`http://127.0.0.1:${port}/config.json`)).json()) as { supabaseAnonKey: string };
    await expect(jwtVerify(anon.supabaseAnonKey, new TextEncoder().encode(values.jwt_secret))).resolves.toBeTruthy();
  });
});

type ComposeService = {
  image?: string;
  build?: string;
  command?: string[];
  environment: Record<string, string>;
  secrets?: string[];
  healthcheck?: { disable?: boolean };
  ports?: unknown[];
  volumes?: unknown[];
  user?: string;
  deploy?: { placement?: { constraints?: string[] } };
};
type Compose = { services: Record<string, ComposeService>; secrets: Record<string, { file: string }>; volumes: Record<string, unknown> };

/** Every /run/secrets/NAME an environment names is a secret the service is given, and one the file defines. */
function expectSecretsWired(file: Compose, service: ComposeService): void {
  const named = Object.values(service.environment)
    .map((v) => /^\/run\/secrets\/(.+)$/.exec(String(v))?.[1])
    .filter((s): s is string => s !== undefined);
  expect(named.length).toBeGreaterThan(0);
  for (const s of named) {
    expect(service.secrets).toContain(s);
    expect(file.secrets[s]?.file).toMatch(new RegExp(`secrets/${s}$`));
  }
}

describe('compose.yaml and the Swarm stack', () => {
  it('compose.yaml: a web server without its worker, a worker without the HTTP check, PostgreSQL on the same password file', () => {
    const compose = parse(readFileSync(join(ROOT, 'compose.yaml'), 'utf8'), { merge: true }) as Compose;
    const { web, worker, postgres } = compose.services;
    expect(web!.build).toBe('.');
    expect(web!.environment.RUN_WORKER).toBe('false');
    expect(worker!.command).toEqual(['node', 'dist/server/worker.js']);
    expect(worker!.healthcheck).toEqual({ disable: true });
    expect(worker!.image).toBe(web!.image);
    for (const s of [web!, worker!]) expectSecretsWired(compose, s);
    expect(postgres!.environment.POSTGRES_PASSWORD_FILE).toBe(web!.environment.DATABASE_PASSWORD_FILE);
    expectSecretsWired(compose, postgres!);
    expect(Object.keys(compose.volumes)).toContain('postgres');
    expect(new URL(web!.environment.DATABASE_URL!).password).toBe('');
    // No default address: the operator names it (issue 33, item 2).
    expect(web!.environment.PUBLIC_URL).toMatch(/^\$\{PUBLIC_URL:\?.+\}$/);
  });

  it('the stack file: docker stack config takes it; web and worker on a manager, with its engine socket', () => {
    const path = join(ROOT, 'deploy/nodeharbor-stack.yaml');
    // Without DOCKER_GID the file refuses to be read: the socket's group differs between hosts.
    const refused = spawnSync('docker', ['stack', 'config', '-c', path], {
      encoding: 'utf8',
      env: { ...process.env, DOCKER_GID: '', PUBLIC_URL: 'https://nodeharbor.example' },
    });
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('DOCKER_GID');
    // Nor without PUBLIC_URL, which the image's every-interface HOST requires.
    const noAddress = spawnSync('docker', ['stack', 'config', '-c', path], { encoding: 'utf8', env: { ...process.env, DOCKER_GID: '999', PUBLIC_URL: '' } });
    expect(noAddress.status).not.toBe(0);
    expect(noAddress.stderr).toContain('PUBLIC_URL');
    const stack = parse(docker(['stack', 'config', '-c', path], { DOCKER_GID: '999', PUBLIC_URL: 'https://nodeharbor.example' })) as Compose;
    const raw = parse(readFileSync(path, 'utf8'), { merge: true }) as Compose;
    const { web, worker, postgres } = stack.services;
    for (const s of [web!, worker!]) {
      expect(s.environment.PROVISIONER).toBe('docker');
      expect(s.user).toBe('1000:999');
      expect(s.volumes).toContainEqual(expect.objectContaining({ type: 'bind', source: '/var/run/docker.sock', target: '/var/run/docker.sock' }));
      expect(s.deploy?.placement?.constraints).toEqual(['node.role == manager']);
    }
    for (const s of [raw.services.web!, raw.services.worker!, raw.services.postgres!]) expectSecretsWired(raw, s);
    expect(web!.environment.RUN_WORKER).toBe('false');
    expect(worker!.command).toEqual(['node', 'dist/server/worker.js']);
    expect(worker!.healthcheck).toEqual({ disable: true });
    expect(postgres!.environment.POSTGRES_PASSWORD_FILE).toBe(web!.environment.DATABASE_PASSWORD_FILE);
  });
});

/** A TCP port no one listens on now: the web server of the host-network test takes it. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
