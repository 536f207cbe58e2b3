import { execFileSync } from 'node:child_process';
import { until } from '../helpers/wait';

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

/** A node's Swarm service: `nh-` and the first 12 characters of its service id, as the driver names it. */
export const swarmName = (serviceId: string) => `nh-${serviceId.slice(0, 12)}`;

/** A node's one running container, found as an operator would, by the label Swarm gives it. */
export function nodeContainer(serviceId: string): string {
  const found = docker('ps', '-q', '--filter', `label=com.docker.swarm.service.name=${swarmName(serviceId)}`)
    .split('\n')
    .filter(Boolean);
  if (found.length !== 1) throw new Error(`expected one running container of ${swarmName(serviceId)}, found ${found.length}`);
  return found[0]!;
}

/** Ends a node's running container as kill -9 would (exit code 137). */
export function killNode(serviceId: string): void {
  docker('kill', '--signal', 'KILL', nodeContainer(serviceId));
}

/** Removes an image the tests built or pulled, once the containers of removed nodes that ran it, which outlive their service by its stop grace, are gone. */
export async function removeImage(tag: string): Promise<void> {
  await until(`the containers of ${tag} to go`, () => docker('ps', '--all', '--quiet', '--filter', `ancestor=${tag}`) === '', 60_000, 200);
  docker('image', 'rm', tag);
}
