import { originOf, type Database } from '../db/database';
import type { AppDeps } from '../deps';
import type { Config, MachinesConfig } from '../env';
import { createProductRouter } from './drivers/by-product';
import { checkSwarmManager, connectDocker, DEFAULT_DOCKER_HOST, DOCKER_DIR } from './drivers/docker-engine';
import { createDockerDriver } from './drivers/docker';
import { createMachineDriver } from './drivers/machine';
import { createSimulatedDriver } from './drivers/simulated';
import { createHetznerProvider } from './machines/hetzner';
import { renderUserData } from './machines/user-data';
import type { Provisioner } from './provisioner';

type ProvisionerDeps = Pick<AppDeps, 'config' | 'db' | 'keys'>;

/** The machine driver MACHINE_PROVIDER names; its servers' agents call this server's functions at PUBLIC_URL. */
function machineDriver(db: Database, config: Config, machines: MachinesConfig, apikey: string): Provisioner {
  const provider = createHetznerProvider({ token: machines.token, baseUrl: machines.endpoint });
  return createMachineDriver(db, provider, {
    userData: (bootstrapToken) =>
      renderUserData({
        url: config.publicUrl,
        apikey,
        bootstrapToken,
        downloadUrl: machines.galaDownloadUrl,
        sha256: machines.galaSha256 ?? '',
        eulaAccepted: machines.galaEulaAccepted,
      }),
    sshKeys: machines.sshKeys,
    firewalls: machines.firewalls,
    heartbeatSeconds: machines.heartbeatSeconds,
  });
}

/** The Swarm driver, once its engine answers as a manager (else one line saying what to run is thrown). */
async function swarmDriver(config: Config): Promise<Provisioner> {
  const docker = connectDocker(config.docker);
  try {
    await checkSwarmManager(docker, config.docker.host ?? DEFAULT_DOCKER_HOST);
  } catch (e) {
    if (!config.machines || !(e instanceof Error)) throw e;
    throw new Error(`${e.message}; or set SWARM=off to sell only the products that run on machines of their own`, { cause: e });
  }
  return createDockerDriver(docker, { registryConfigDir: config.docker.configDir ?? DOCKER_DIR });
}

/**
 * The provisioner PROVISIONER names. Real nodes run on the driver their product names: Swarm, or
 * a machine of their own from MACHINE_PROVIDER. Swarm's engine is checked first, unless SWARM=off
 * (an operator who sells only machine products needs no engine).
 */
async function createProvisioner({ config, db, keys }: ProvisionerDeps): Promise<Provisioner> {
  if (config.provisioner === 'simulated') {
    return createSimulatedDriver(db, {
      installSeconds: config.provisionInstallSeconds,
      deleteSeconds: config.provisionDeleteSeconds,
      faultPercent: config.simulatedNodeFaults,
    });
  }
  return createProductRouter(db, {
    swarm: config.swarm ? await swarmDriver(config) : undefined,
    machine: config.machines && machineDriver(db, config, config.machines, keys.anonKey),
  });
}

const made = new WeakMap<Database, Promise<Provisioner>>();

/**
 * One provisioner per database a process opened, made on first use: the worker's (at its start)
 * and the server's (the node-logs function) are the same one, and a process that never needs one
 * never connects to an engine. A failed check is not kept, so the next call tries again.
 */
export function provisionerFor(deps: ProvisionerDeps): Promise<Provisioner> {
  const db = originOf(deps.db);
  let p = made.get(db);
  if (!p) {
    p = createProvisioner({ ...deps, db });
    made.set(db, p);
    p.catch(() => made.delete(db));
  }
  return p;
}
