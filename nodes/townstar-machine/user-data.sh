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

NODEHARBOR_URL='@@NODEHARBOR_URL@@'
NODEHARBOR_APIKEY='@@NODEHARBOR_APIKEY@@'
BOOTSTRAP_TOKEN='@@BOOTSTRAP_TOKEN@@'
GALA_NODE_DOWNLOAD_URL='@@GALA_NODE_DOWNLOAD_URL@@'
GALA_NODE_SHA256='@@GALA_NODE_SHA256@@'
GALA_EULA='@@GALA_EULA@@'

say() { printf '%s nodeharbor-boot: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*"; }

# curl's options that keep a URL, and its redirects (Gala's link redirects), to https; none for
# http on a loopback address, which only tests reach.
https_only() {
  case $1 in
    http://*)
      h=${1#http://}
      h=${h%%/*}
      h=${h%%:*}
      case $h in
        localhost) return 0 ;;
        127.*) case $h in *[!0-9.]*) ;; *) return 0 ;; esac ;;
      esac
      ;;
  esac
  printf '%s' '--proto =https --proto-redir =https'
}

# Tells NodeHarbor why the boot stopped, with the one-time token, so that the install fails with
# this reason at once instead of at its timeout. The body goes on stdin (printf is the shell's
# own): the token is on no command line. Without curl (the package install failed), it is silent.
report_stop() {
  command -v curl >/dev/null 2>&1 || return 0
  # Our own words, made safe for a JSON string all the same (tr reads \\ as one backslash).
  # shellcheck disable=SC1003
  reason=$(printf '%s' "$1" | tr -d '"\\')
  # shellcheck disable=SC2046 # two options or none
  printf '{"token":"%s","reason":"%s"}' "$BOOTSTRAP_TOKEN" "$reason" |
    curl -sS --max-time 30 $(https_only "$NODEHARBOR_URL") -H "apikey: $NODEHARBOR_APIKEY" -H 'Content-Type: application/json' \
      --data-binary @- -o /dev/null "$NODEHARBOR_URL/functions/v1/node-boot-failed" || true
}

STEP=start
STOPPED=
stop_boot() {
  STOPPED=1
  say "STOPPED: $*"
  report_stop "$*"
  exit 1
}
# Any other failure (set -e) still ends with one line saying which step failed.
on_exit() {
  rc=$?
  if [ "$rc" -ne 0 ] && [ -z "$STOPPED" ]; then
    say "STOPPED: $STEP failed with exit code $rc"
    report_stop "$STEP failed with exit code $rc"
  fi
}
trap on_exit EXIT

# The operator accepts Gala's EULA for every node it installs (GALA_EULA_ACCEPTED), or none is.
[ "$GALA_EULA" = accept ] || stop_boot "Gala's EULA is not accepted (GALA_EULA_ACCEPTED): Gala's node software is not installed"

say "booting a Town Star machine"

STEP="apt-get install"
# What Gala's installer and our agent need; Gala's guide installs docker.io first.
apt-get -q -o DPkg::Lock::Timeout=600 update
apt-get -q -y -o DPkg::Lock::Timeout=600 install curl jq ca-certificates docker.io

STEP="the download of Gala's node software"
PROTO=$(https_only "$GALA_NODE_DOWNLOAD_URL")
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
