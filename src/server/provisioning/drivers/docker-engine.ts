import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';

/** Where the Docker Engine is, as the Docker CLI reads DOCKER_HOST, DOCKER_TLS_VERIFY and DOCKER_CERT_PATH (env.ts reads them). */
export type DockerEngineOptions = { host?: string | undefined; tlsVerify: boolean; certPath?: string | undefined };

export const DEFAULT_DOCKER_HOST = 'unix:///var/run/docker.sock';
/** The Docker CLI's own folder: certificates and `docker login`'s credentials. */
export const DOCKER_DIR = join(homedir(), '.docker');

/** How long the start waits for an engine before it says none answers. */
const ANSWER_TIMEOUT_MS = 10_000;

/**
 * A client of the Docker Engine API where the Docker CLI would look: DOCKER_HOST (the local Unix
 * socket by default, or tcp://host:port, port 2375, or 2376 with TLS), with TLS and the
 * certificates ca.pem, cert.pem and key.pem of DOCKER_CERT_PATH (default ~/.docker) when
 * DOCKER_TLS_VERIFY is set. Certificates that cannot be read are thrown now, not at the first call.
 */
export function connectDocker(opts: DockerEngineOptions): Docker {
  const host = opts.host || DEFAULT_DOCKER_HOST;
  // NOTE: docker-modem starts from its own reading of process.env (DOCKER_HOST, DOCKER_CERT_PATH...)
  // and lays our options over it: every connection setting is given here, so that only ours count.
  const none = { socketPath: undefined, host: undefined, port: undefined, protocol: undefined, ca: undefined, cert: undefined, key: undefined };
  if (host.startsWith('unix://')) return new Docker({ ...none, socketPath: host.slice('unix://'.length), protocol: 'http' });
  if (!host.startsWith('tcp://')) throw new Error(`DOCKER_HOST must be unix:///path/to/docker.sock or tcp://host:port, got "${host}"`);
  // tcp: is not a special scheme, so the URL keeps whatever port is written, and none when none is.
  const url = new URL(host);
  const address = { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: url.port || (opts.tlsVerify ? '2376' : '2375'), pathPrefix: '/' };
  if (!opts.tlsVerify) return new Docker({ ...none, ...address, protocol: 'http' });
  const certs = opts.certPath || DOCKER_DIR;
  const read = (file: string) => readFileSync(join(certs, file));
  return new Docker({ ...none, ...address, protocol: 'https', ca: read('ca.pem'), cert: read('cert.pem'), key: read('key.pem') });
}

/**
 * Resolves when the engine answers and is a manager of an active Swarm (services can only be
 * created on a manager); otherwise throws an Error of one line that says what to run.
 * `hostLabel` names the engine in that line (DOCKER_HOST, or its default).
 */
export async function checkSwarmManager(docker: Docker, hostLabel: string): Promise<void> {
  let info: { Swarm?: { LocalNodeState?: string; ControlAvailable?: boolean } };
  try {
    // The typings lack ping's options; an engine behind a dead address would otherwise hold the start for minutes.
    const ping = docker.ping.bind(docker) as unknown as (o: { abortSignal: AbortSignal }) => Promise<unknown>;
    await ping({ abortSignal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) });
    info = (await docker.info()) as typeof info;
  } catch (e) {
    const why = (e instanceof Error ? e.message : String(e)).split('\n')[0]?.trim();
    throw new Error(`PROVISIONER=docker: no Docker Engine answers at ${hostLabel} (${why}): start dockerd, or set DOCKER_HOST to a Swarm manager's engine`, {
      cause: e,
    });
  }
  const swarm = info.Swarm;
  if (swarm?.LocalNodeState === 'active' && !swarm.ControlAvailable) {
    throw new Error(
      `PROVISIONER=docker: the Docker Engine at ${hostLabel} is a Swarm worker, not a manager: point DOCKER_HOST at a manager, or run \`docker node promote <this node>\` on a manager`,
    );
  }
  if (swarm?.LocalNodeState !== 'active') {
    throw new Error(
      `PROVISIONER=docker: the Docker Engine at ${hostLabel} is not a Swarm manager: run \`docker swarm init\` (or point DOCKER_HOST at a manager)`,
    );
  }
}
