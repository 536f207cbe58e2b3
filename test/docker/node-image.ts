import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The node image of the tests, built offline: no registry can be reached from here. */
export const NODE_IMAGE = 'nodeharbor-test/node:1';

/** Debian's busybox-static: one static binary, so the image needs nothing else. */
const BUSYBOX = '/bin/busybox';

// Reads its key where Swarm mounts the secret, says how long it is (never what it is), then beats.
const ENTRYPOINT = `#!/bin/busybox sh
key=$(/bin/busybox cat /run/secrets/node_key 2>/dev/null) || { echo "no key at /run/secrets/node_key"; exit 1; }
echo "node starting, key of \${#key} characters"
while true; do echo "heartbeat $(/bin/busybox date -u +%s)"; /bin/busybox sleep 2; done
`;

/** Builds NODE_IMAGE with docker import from a busybox-static root file system, unless the engine has it. */
export function ensureNodeImage(): void {
  if (spawnSync('docker', ['image', 'inspect', NODE_IMAGE], { stdio: 'ignore' }).status === 0) return;
  const root = mkdtempSync(join(tmpdir(), 'nh-node-image-'));
  try {
    mkdirSync(join(root, 'bin'));
    copyFileSync(BUSYBOX, join(root, 'bin', 'busybox'));
    chmodSync(join(root, 'bin', 'busybox'), 0o755);
    writeFileSync(join(root, 'bin', 'node'), ENTRYPOINT, { mode: 0o755 });
    const tar = join(root, 'rootfs.tar');
    execFileSync('tar', ['-C', root, '-cf', tar, 'bin']);
    execFileSync('docker', ['import', '-c', 'ENTRYPOINT ["/bin/busybox","sh","/bin/node"]', tar, NODE_IMAGE], { stdio: ['ignore', 'ignore', 'inherit'] });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
