import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The node image of the tests, built offline: no registry can be reached from here. */
export const NODE_IMAGE = 'nodeharbor-test/node:1';

/** Debian's busybox-static: one static binary, so the image needs nothing else. */
const BUSYBOX = '/bin/busybox';

// Reads its key where Swarm mounts the secret, says how long it is (never what it is), then beats.
// NOTE: a key starting with LEAK is the exception: such a node prints it once at start, plain,
// base64 and URL-encoded (+ / = as %2B %2F %3D, which is encodeURIComponent for a key of base64
// characters), so that the API tests can check that the server redacts a node's key from its logs.
const ENTRYPOINT = `#!/bin/busybox sh
key=$(/bin/busybox cat /run/secrets/node_key 2>/dev/null) || { echo "no key at /run/secrets/node_key"; exit 1; }
echo "node starting, key of \${#key} characters"
case "$key" in LEAK*)
  echo "debug key=$key"
  echo "debug key_b64=$(/bin/busybox printf %s "$key" | /bin/busybox base64 -w 0)"
  echo "debug key_url=$(/bin/busybox printf %s "$key" | /bin/busybox sed 's/+/%2B/g; s|/|%2F|g; s/=/%3D/g')"
esac
while true; do echo "heartbeat $(/bin/busybox date -u +%s)"; /bin/busybox sleep 2; done
`;
const IMPORT_CHANGES = ['ENTRYPOINT ["/bin/busybox","sh","/bin/node"]'];
/** Labelled on the image, so that an image built from another version of this file is built again. */
const VERSION = createHash('sha256').update(ENTRYPOINT).update(IMPORT_CHANGES.join('\n')).digest('hex').slice(0, 16);
const VERSION_LABEL = 'nodeharbor.test-image';

/**
 * Builds NODE_IMAGE with `docker import` from a busybox-static root file system (/bin/busybox and
 * the entrypoint /bin/node), unless the engine has this version of it. Offline, synchronous, and
 * safe to call from every test file (`beforeAll(() => ensureNodeImage())`); npm test also runs it
 * once before the Docker tests (`npx tsx test/docker/node-image.ts`).
 */
export function ensureNodeImage(): void {
  const built = spawnSync('docker', ['image', 'inspect', '--format', `{{index .Config.Labels "${VERSION_LABEL}"}}`, NODE_IMAGE], { encoding: 'utf8' });
  if (built.status === 0 && built.stdout.trim() === VERSION) return;
  if (!existsSync(BUSYBOX)) throw new Error(`The test node image needs ${BUSYBOX} from Debian's busybox-static: run \`apt-get install -y busybox-static\``);
  // A dynamically linked busybox (Debian's busybox package) names its loader near the start of the file: it cannot run alone.
  if (readFileSync(BUSYBOX).subarray(0, 4096).includes('/ld-')) {
    throw new Error(`${BUSYBOX} is dynamically linked: the test node image needs busybox-static (\`apt-get install -y busybox-static\`)`);
  }
  const root = mkdtempSync(join(tmpdir(), 'nh-node-image-'));
  try {
    mkdirSync(join(root, 'bin'));
    copyFileSync(BUSYBOX, join(root, 'bin', 'busybox'));
    chmodSync(join(root, 'bin', 'busybox'), 0o755);
    writeFileSync(join(root, 'bin', 'node'), ENTRYPOINT, { mode: 0o755 });
    const tar = join(root, 'rootfs.tar');
    execFileSync('tar', ['-C', root, '--owner=0', '--group=0', '--numeric-owner', '-cf', tar, 'bin']);
    const changes = [...IMPORT_CHANGES, `LABEL ${VERSION_LABEL}=${VERSION}`].flatMap((c) => ['-c', c]);
    execFileSync('docker', ['import', ...changes, tar, NODE_IMAGE], { stdio: ['ignore', 'ignore', 'inherit'] });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

// Run as a script: npm test's Docker step builds the image before the tests.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  ensureNodeImage();
  console.log(`${NODE_IMAGE} is ready`);
}
