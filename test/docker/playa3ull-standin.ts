import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importBusyboxImage, isTestImage } from './busybox-image';

/** The vendor's image, tag and all, as nodes/playa3ull-masternode/Dockerfile pins it by default. */
export const PLAYA3ULL_IMAGE = `ghcr.io/playa3ull/node:${
  /^ARG PLAYA3ULL_TAG=(\S+)$/m.exec(readFileSync(join(import.meta.dirname, '../../nodes/playa3ull-masternode/Dockerfile'), 'utf8'))![1]
}`;

/** A key in the form Playa3ull issues (its README's placeholder: 12, 4, 4, 4 and 12 characters). */
export const PLAYA3ULL_KEY = '4f3a9c2b7e10-5d6c-4b8a-9e21-0c7d3f6a8b59';
/** A well-formed key the stand-in's licence server does not know. */
export const UNKNOWN_KEY = '000000000000-0000-0000-0000-000000000000';

// The stand-in for Playa3ull's node, as its README documents it: the licence from --license=<key>
// or LICENSE_KEY. Its lines are a stand-in's own: Playa3ull publishes none (decision 035), and
// NodeHarbor matches none of them; it shows the customer the node's last line as it is.
const NODE = `#!/bin/sh
key="\${LICENSE_KEY:-}"
for arg in "$@"; do case "$arg" in --license=*) key="\${arg#--license=}" ;; esac; done
echo "PLAYA3ULL Master Node (stand-in)"
if [ -z "$key" ]; then echo "Error: no license key provided: use --license=<key> or set LICENSE_KEY"; exit 1; fi
case "$key" in
  *[!0-9A-Za-z-]* | ????????????-????-????-????-?????????????* ) echo "Error: invalid license key format"; exit 1 ;;
  ????????????-????-????-????-???????????? ) ;;
  * ) echo "Error: invalid license key format"; exit 1 ;;
esac
echo "Connecting to the PLAYA3ULL network"
if [ "$key" = "${UNKNOWN_KEY}" ]; then echo "Error: license rejected: license not found"; exit 1; fi
echo "License accepted: ****\${key#????????????????????????????????????}"
echo "Connected"
while true; do echo "Heartbeat sent"; sleep 2; done
`;

/**
 * Imports the stand-in as PLAYA3ULL_IMAGE, offline (busybox-static), with an entrypoint and a
 * command of its own, as the vendor's image has, for NodeHarbor's build to find. Refuses to replace
 * an image of that name that is not a stand-in: a developer's pulled copy of the real one.
 */
export function ensurePlaya3ullStandIn(): void {
  const present = spawnSync('docker', ['image', 'inspect', PLAYA3ULL_IMAGE], { stdio: 'ignore' }).status === 0;
  if (present && !isTestImage(PLAYA3ULL_IMAGE)) {
    throw new Error(`${PLAYA3ULL_IMAGE} is on this engine and is not the tests' stand-in: remove it (docker image rm) to run these tests`);
  }
  importBusyboxImage(PLAYA3ULL_IMAGE, { 'usr/local/bin/playa3ull-node': NODE }, ['ENTRYPOINT ["/usr/local/bin/playa3ull-node"]', 'CMD ["--headless"]']);
}
