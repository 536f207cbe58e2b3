#!/usr/bin/env bash
# A PostgreSQL for the tests on 127.0.0.1:5432 (trust auth on loopback, database test), as root on
# a Debian machine: installed from Debian's packages and started when none answers there. Run by
# .ci/run, and by npm test when no PostgreSQL answers. A throwaway test server: never run this on a
# machine whose PostgreSQL holds anything of value.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

pg_answers() { pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; }

need=()
command -v pg_isready >/dev/null || need+=(postgresql-client)
if ! pg_answers && [ ! -d /etc/postgresql ]; then need+=(postgresql); fi
if [ ${#need[@]} -gt 0 ]; then
  echo "Installing: ${need[*]}"
  apt-get update -qq
  apt-get install -y -qq "${need[@]}" >/dev/null
fi

if ! pg_answers; then
  ver=$(ls /etc/postgresql | sort -V | tail -n 1)
  hba=/etc/postgresql/$ver/main/pg_hba.conf
  # Loopback only, trust auth: a throwaway test server.
  sed -i -E 's/^(host\s+all\s+all\s+(127\.0\.0\.1\/32|::1\/128)\s+)\S+/\1trust/' "$hba"
  sed -i -E 's/^(local\s+all\s+postgres\s+)\S+/\1trust/' "$hba"
  pg_ctlcluster --skip-systemctl-redirect "$ver" main start || pg_ctlcluster --skip-systemctl-redirect "$ver" main restart
  for _ in $(seq 1 30); do pg_answers && break; sleep 1; done
fi
psql -h 127.0.0.1 -U postgres -d postgres -tAc "select 1 from pg_database where datname = 'test'" | grep -q 1 \
  || psql -h 127.0.0.1 -U postgres -d postgres -c 'create database test'
