import { execFileSync } from 'node:child_process';

/** The Docker CLI's output, trimmed: the tests look at the engine the way an operator would, not through our driver. */
export function docker(...args: string[]): string {
  return execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

export function dockerJson<T>(...args: string[]): T {
  return JSON.parse(docker(...args)) as T;
}

/** Removes every service and secret labelled with one of these service ids: a test leaves nothing behind. */
export function removeOurs(serviceIds: readonly string[]): void {
  for (const id of serviceIds) {
    for (const kind of ['service', 'secret'] as const) {
      const found = docker(kind, 'ls', '-q', '--filter', `label=nodeharbor.service_id=${id}`).split('\n').filter(Boolean);
      // Services first: a secret in use cannot be removed.
      if (found.length) execFileSync('docker', [kind, 'rm', ...found], { stdio: 'ignore' });
    }
  }
}

/** Ends a node's running container as kill -9 would (exit code 137), found as an operator would, by the label Swarm gives it. */
export function killNode(serviceId: string): void {
  const name = `nh-${serviceId.slice(0, 12)}`;
  const found = docker('ps', '-q', '--filter', `label=com.docker.swarm.service.name=${name}`).split('\n').filter(Boolean);
  if (found.length !== 1) throw new Error(`expected one running container of ${name}, found ${found.length}`);
  docker('kill', '--signal', 'KILL', found[0]!);
}
