import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import type { DockerEngineConfig } from '../../env';

export const DEFAULT_DOCKER_HOST = 'unix:///var/run/docker.sock';

/**
 * A client of the Docker Engine API where the Docker CLI would look: DOCKER_HOST (a Unix socket by
 * default, or tcp://host:port), with TLS and the certificates of DOCKER_CERT_PATH (default
 * ~/.docker) when DOCKER_TLS_VERIFY is set.
 */
export function connectDocker(config: DockerEngineConfig): Docker {
  const host = config.host ?? DEFAULT_DOCKER_HOST;
  if (host.startsWith('unix://')) return new Docker({ socketPath: host.slice('unix://'.length) });
  const url = new URL(host.replace(/^tcp:/, config.tlsVerify ? 'https:' : 'http:'));
  if (!config.tlsVerify) return new Docker({ host: url.hostname, port: url.port, protocol: 'http' });
  const certs = config.certPath ?? join(homedir(), '.docker');
  const read = (file: string) => readFileSync(join(certs, file));
  return new Docker({ host: url.hostname, port: url.port, protocol: 'https', ca: read('ca.pem'), cert: read('cert.pem'), key: read('key.pem') });
}

/**
 * Refuses to go on, with one line saying what to do, unless the engine answers and is a manager
 * of an active Swarm: services can only be created on a manager.
 */
export async function checkSwarmManager(docker: Docker, host: string): Promise<void> {
  let info: { Swarm?: { LocalNodeState?: string; ControlAvailable?: boolean } };
  try {
    await docker.ping();
    info = (await docker.info()) as typeof info;
  } catch (e) {
    const why = e instanceof Error ? e.message.split('\n')[0] : String(e);
    throw new Error(`PROVISIONER=docker: no Docker Engine answers at ${host} (${why}): start dockerd, or set DOCKER_HOST to a Swarm manager's engine`, { cause: e });
  }
  if (info.Swarm?.LocalNodeState !== 'active' || !info.Swarm.ControlAvailable) {
    throw new Error(`PROVISIONER=docker: the Docker Engine at ${host} is not a Swarm manager: run \`docker swarm init\` (or point DOCKER_HOST at a manager)`);
  }
}
