import { pathToFileURL } from 'node:url';
import { importBusyboxImage } from './busybox-image';

/** The node image of the tests, built offline: no registry can be reached from here. */
export const NODE_IMAGE = 'nodeharbor-test/node:1';

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

/**
 * Builds NODE_IMAGE with `docker import` from a busybox-static root file system (/bin/busybox and
 * the entrypoint /bin/node), unless the engine has this version of it. Offline, synchronous, and
 * safe to call from every test file (`beforeAll(() => ensureNodeImage())`); npm test also runs it
 * once before the Docker tests (`npx tsx test/docker/node-image.ts`).
 */
export function ensureNodeImage(): void {
  importBusyboxImage(NODE_IMAGE, { 'bin/node': ENTRYPOINT }, IMPORT_CHANGES);
}

// Run as a script: npm test's Docker step builds the image before the tests.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  ensureNodeImage();
  console.log(`${NODE_IMAGE} is ready`);
}
