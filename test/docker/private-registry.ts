import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { until } from '../helpers/wait';

export type PrivateRegistry = { host: string; user: string; password: string; stop(): Promise<void> };

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A private registry on loopback: Debian's docker-registry (the CNCF Distribution registry, what
 * registry:2 runs), with basic auth from an htpasswd file. The engine pulls from 127.0.0.0/8 over
 * plain HTTP, so no certificate is needed.
 */
export async function startPrivateRegistry(): Promise<PrivateRegistry> {
  const dir = mkdtempSync(join(tmpdir(), 'nh-registry-'));
  const host = `127.0.0.1:${await freePort()}`;
  const user = 'operator';
  const password = `pw-${Math.random().toString(36).slice(2)}`;
  // The registry reads bcrypt entries only.
  writeFileSync(join(dir, 'htpasswd'), `${user}:${bcrypt.hashSync(password, 4)}\n`);
  writeFileSync(
    join(dir, 'config.yml'),
    [
      'version: 0.1',
      'log: { level: error }',
      `storage: { filesystem: { rootdirectory: ${join(dir, 'data')} } }`,
      `http: { addr: "${host}" }`,
      `auth: { htpasswd: { realm: nodeharbor-test, path: ${join(dir, 'htpasswd')} } }`,
    ].join('\n'),
  );
  const child = spawn('docker-registry', ['serve', join(dir, 'config.yml')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    // Up when it asks for credentials.
    await until(
      `docker-registry to answer on ${host}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`docker-registry stopped: ${stderr.trim()}`);
        const status = await fetch(`http://${host}/v2/`).then(
          (r) => r.status,
          () => 0,
        );
        return status === 401;
      },
      30_000,
    );
  } catch (e) {
    await stop();
    throw e;
  }
  return { host, user, password, stop };
}
