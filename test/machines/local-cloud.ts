import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { galaNodeTarball } from './gala-node-standin';
import { startHetznerStandIn, type HetznerStandIn } from './hetzner-standin';
import { importMachineImage, MACHINE_IMAGE, USER_DATA_PATH } from './machine-image';

export type LocalCloud = {
  cloud: HetznerStandIn;
  /** What NodeHarbor is started with to rent its machines here (MACHINE_PROVIDER and the rest). */
  env: Record<string, string>;
  /** The container that plays a server the stand-in made, by the server's id. */
  containerOf(serverId: string): string | undefined;
  /** Removes every container it made, then stops the stand-ins. */
  close(): Promise<void>;
};

const docker = (...args: string[]) => execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/**
 * A Hetzner Cloud of this machine, for the tests and the demo (npm run demo:machines): the
 * Hetzner stand-in, which "boots" each server it makes by running its user data, unchanged, in a
 * container that plays a fresh Debian server (machine-image.ts), and a download server for the
 * stand-in of Gala's node software. Only what needs the internet is a stand-in: the agent, the
 * bootstrap and the heartbeats are real. Containers are named `<prefix>-<random>-<server id>`.
 */
export async function startLocalCloud(prefix: string): Promise<LocalCloud> {
  importMachineImage();
  const run = randomBytes(4).toString('hex');
  const work = mkdtempSync(join(tmpdir(), 'nh-local-cloud-'));
  const containers = new Map<string, string>();
  const tarball = galaNodeTarball();
  const downloads = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/gzip' }).end(tarball));
  await new Promise<void>((r) => downloads.listen(0, '127.0.0.1', r));

  /** A server the stand-in made, booted: its user data in place, then the machine started. */
  function boot(id: string, userData: string): void {
    const name = `${prefix}-${run}-${id}`;
    containers.set(id, name);
    const file = join(work, `${id}.sh`);
    writeFileSync(file, userData, { mode: 0o700 });
    docker('create', '--name', name, '--network', 'host', MACHINE_IMAGE);
    docker('cp', file, `${name}:${USER_DATA_PATH}`);
    docker('start', name);
  }
  const remove = (name: string) => spawnSync('docker', ['rm', '--force', name], { stdio: 'ignore' });

  const cloud = await startHetznerStandIn({
    actionPolls: 1,
    onBoot: (m) => boot(m.id, m.userData),
    onDelete: (id) => {
      const name = containers.get(id);
      if (name) remove(name);
      containers.delete(id);
    },
    // Power as a machine feels it: everything on it stops, and goes on where it was.
    onPower: (id, on) => {
      const name = containers.get(id);
      if (name) docker(on ? 'unpause' : 'pause', name);
    },
  });
  return {
    cloud,
    env: {
      MACHINE_PROVIDER: 'hetzner',
      HCLOUD_TOKEN: cloud.token,
      HCLOUD_ENDPOINT: cloud.url,
      MACHINE_FIREWALLS: 'nodeharbor-nodes',
      GALA_NODE_DOWNLOAD_URL: `http://127.0.0.1:${(downloads.address() as AddressInfo).port}/DownloadLinuxNode`,
      GALA_NODE_SHA256: createHash('sha256').update(tarball).digest('hex'),
      GALA_EULA_ACCEPTED: 'true',
    },
    containerOf: (serverId) => containers.get(serverId),
    async close() {
      for (const name of containers.values()) remove(name);
      containers.clear();
      await cloud.close();
      await new Promise((r) => downloads.close(r));
      rmSync(work, { recursive: true, force: true });
    },
  };
}
