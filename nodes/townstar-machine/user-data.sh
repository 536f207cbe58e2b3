#!/bin/sh
# NodeHarbor: the boot script (cloud-init user data) of a machine running one Town Star node.
# A template: src/server/provisioning/machines/user-data.ts fills in each placeholder (a name
# between two pairs of at signs) with a value it has checked against an allow-list, and the
# agent's files. It holds a one-time bootstrap token
# and no other secret: the agent trades the token for the Gala key (docs/decisions/036).
# Everything it does is logged to /var/log/nodeharbor-boot.log; a stop is one line there.
set -eu
umask 022
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export DEBIAN_FRONTEND=noninteractive

BOOT_LOG=/var/log/nodeharbor-boot.log
exec >>"$BOOT_LOG" 2>&1

say() { printf '%s nodeharbor-boot: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*"; }
STEP=start
STOPPED=
stop_boot() {
  STOPPED=1
  say "STOPPED: $*"
  exit 1
}
# Any other failure (set -e) still ends with one line saying which step failed.
on_exit() {
  rc=$?
  [ "$rc" -eq 0 ] || [ -n "$STOPPED" ] || say "STOPPED: $STEP failed with exit code $rc"
}
trap on_exit EXIT

NODEHARBOR_URL='@@NODEHARBOR_URL@@'
NODEHARBOR_APIKEY='@@NODEHARBOR_APIKEY@@'
BOOTSTRAP_TOKEN='@@BOOTSTRAP_TOKEN@@'
GALA_NODE_DOWNLOAD_URL='@@GALA_NODE_DOWNLOAD_URL@@'
GALA_NODE_SHA256='@@GALA_NODE_SHA256@@'
GALA_EULA='@@GALA_EULA@@'

# The operator accepts Gala's EULA for every node it installs (GALA_EULA_ACCEPTED), or none is.
[ "$GALA_EULA" = accept ] || stop_boot "Gala's EULA is not accepted (GALA_EULA_ACCEPTED): Gala's node software is not installed"

say "booting a Town Star machine"

STEP="apt-get install"
# What Gala's installer and our agent need; Gala's guide installs docker.io first.
apt-get -q -o DPkg::Lock::Timeout=600 update
apt-get -q -y -o DPkg::Lock::Timeout=600 install curl jq ca-certificates docker.io

STEP="the download of Gala's node software"
# https only, redirects included (Gala's link redirects); http on a loopback address for tests.
PROTO="--proto =https --proto-redir =https"
host=${GALA_NODE_DOWNLOAD_URL#http://}
host=${host%%/*}
host=${host%%:*}
case $GALA_NODE_DOWNLOAD_URL in
  http://*)
    case $host in
      localhost) PROTO= ;;
      127.*) case $host in *[!0-9.]*) ;; *) PROTO= ;; esac ;;
    esac
    ;;
esac
WORK=/var/lib/nodeharbor-boot
mkdir -p "$WORK"
TARBALL=$WORK/gala-node.tar.gz
say "downloading Gala's node software"
# shellcheck disable=SC2086 # PROTO is two options or none
curl -fsSL $PROTO --retry 5 --retry-delay 10 --connect-timeout 30 --max-time 1800 -o "$TARBALL" "$GALA_NODE_DOWNLOAD_URL"

STEP="the check of Gala's node software"
if [ -n "$GALA_NODE_SHA256" ]; then
  actual=$(sha256sum "$TARBALL" | cut -d ' ' -f 1)
  [ "$actual" = "$GALA_NODE_SHA256" ] || stop_boot "Gala's node software has SHA-256 $actual, not the expected $GALA_NODE_SHA256: it is not installed"
  say "Gala's node software has the expected SHA-256"
fi

STEP="gala-node/install.sh"
cd "$WORK"
rm -rf gala-node
tar xzf "$TARBALL"
[ -f gala-node/install.sh ] || stop_boot "Gala's download has no gala-node/install.sh: it is not installed"
say "running gala-node/install.sh (it installs Docker and Kubernetes)"
# It asks before installing; Gala's guide and the community scripts answer yes.
yes Y | ./gala-node/install.sh
cd /

STEP="the agent's installation"
mkdir -p /etc/nodeharbor /usr/local/sbin /etc/systemd/system
chmod 0700 /etc/nodeharbor
(
  umask 077
  printf 'NODEHARBOR_URL=%s\nNODEHARBOR_APIKEY=%s\nNODEHARBOR_BOOTSTRAP_TOKEN=%s\n' "$NODEHARBOR_URL" "$NODEHARBOR_APIKEY" "$BOOTSTRAP_TOKEN" >/etc/nodeharbor/agent.env
)
cat >/usr/local/sbin/nodeharbor-agent <<'NODEHARBOR_AGENT_EOF'
@@AGENT_SCRIPT@@
NODEHARBOR_AGENT_EOF
chmod 0755 /usr/local/sbin/nodeharbor-agent
cat >/etc/systemd/system/nodeharbor-agent.service <<'NODEHARBOR_UNIT_EOF'
@@AGENT_UNIT@@
NODEHARBOR_UNIT_EOF
chmod 0644 /etc/systemd/system/nodeharbor-agent.service

STEP="systemctl enable --now nodeharbor-agent"
systemctl daemon-reload
systemctl enable --now nodeharbor-agent.service
say "the agent runs: its log is /var/log/nodeharbor-agent.log"
