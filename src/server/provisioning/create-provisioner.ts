import type { Database } from '../db/database';
import type { Config } from '../env';
import { checkSwarmManager, connectDocker, DEFAULT_DOCKER_HOST, DOCKER_DIR } from './drivers/docker-engine';
import { createDockerDriver } from './drivers/docker';
import { createSimulatedDriver } from './drivers/simulated';
import type { Provisioner } from './provisioner';

/**
 * The provisioner PROVISIONER names. Docker's is checked first: an engine that does not answer or
 * is not a Swarm manager is thrown as one line saying what to do.
 */
async function createProvisioner(config: Config, db: Database): Promise<Provisioner> {
  if (config.provisioner === 'simulated') {
    return createSimulatedDriver(db, {
      installSeconds: config.provisionInstallSeconds,
      deleteSeconds: config.provisionDeleteSeconds,
      faultPercent: config.simulatedNodeFaults,
    });
  }
  const docker = connectDocker(config.docker);
  await checkSwarmManager(docker, config.docker.host ?? DEFAULT_DOCKER_HOST);
  return createDockerDriver(docker, { registryConfigDir: config.docker.configDir ?? DOCKER_DIR });
}

const made = new WeakMap<Database, Promise<Provisioner>>();

/**
 * One provisioner per database a process opened, made on first use: the worker's (at its start)
 * and the server's (the node-logs function) are the same one, and a process that never needs one
 * never connects to an engine. A failed check is not kept, so the next call tries again.
 */
export function provisionerFor(config: Config, db: Database): Promise<Provisioner> {
  let p = made.get(db);
  if (!p) {
    p = createProvisioner(config, db);
    made.set(db, p);
    p.catch(() => made.delete(db));
  }
  return p;
}
