#!/bin/sh
# gala-node/install.sh: a STAND-IN for Gala's installer, for NodeHarbor's tests only
# (test/machines/gala-node-standin.ts). The real one installs Docker and a small Kubernetes and
# asks first; this one asks the same way and installs only the gala-node CLI stand-in.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
printf 'This installs Docker, k3s and the gala-node CLI. Continue? [Y/n] '
read -r answer || answer=
echo
case $answer in
  Y | y | yes) ;;
  *)
    echo "Installation cancelled (gala-node stand-in)"
    exit 1
    ;;
esac
mkdir -p /usr/local/bin
cp "$here/gala-node" /usr/local/bin/gala-node
chmod 0755 /usr/local/bin/gala-node
mkdir -p /var/lib/gala-node-standin
date -u +%Y-%m-%dT%H:%M:%SZ >/var/lib/gala-node-standin/installed
echo "gala-node is installed (gala-node stand-in: no Docker, no k3s)"
