#!/usr/bin/env bash
# Starts a PostgreSQL server for the sequencer's tests, on loopback only,
# with its data under /tmp, and prints its DSN on the last line of stdout.
# Idempotent: installs the Debian packages if missing, initialises the
# cluster once, starts it if it is not running, creates the database if it
# is not there. Use:  export RESUMECHECK_PG_DSN="$(.ci/postgres.sh | tail -1)"
# RESUMECHECK_PG_PORT, RESUMECHECK_PG_DATA and RESUMECHECK_PG_MAX_CONNECTIONS
# (read when the cluster is initialised) make another cluster: a test of
# many processes against few connection slots starts one with 20.
#
# Authentication: a TCP connection (the DSN's) needs the role's password,
# SCRAM-SHA-256; the password is drawn once into PGDATA/dsn-password (0600)
# and is in the DSN printed. Only the Unix socket, in PGDATA (mode 0700, so
# only the server's user reaches it), is trusted: this script administers
# the server through it. Before, TCP on loopback was trusted, and any local
# user could rewrite a store's facts.
set -euo pipefail

PGPORT="${RESUMECHECK_PG_PORT:-54329}"
PGDATA="${RESUMECHECK_PG_DATA:-/tmp/resumecheck-pg}"
PGMAXCONN="${RESUMECHECK_PG_MAX_CONNECTIONS:-200}"
PGDB=resumecheck
PGUSER_NAME=resumecheck

find_bin() {
  local d
  for d in /usr/lib/postgresql/*/bin; do
    if [ -x "$d/pg_ctl" ]; then echo "$d"; return 0; fi
  done
  return 1
}

if ! BIN="$(find_bin)"; then
  echo "== installing PostgreSQL (Debian packages)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update >&2
  apt-get install -y --no-install-recommends postgresql >&2
  BIN="$(find_bin)"
fi

# The server runs as the unprivileged postgres user (it refuses root).
id postgres >/dev/null 2>&1 || useradd --system --home-dir "$PGDATA" postgres
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

if [ ! -s "$PGDATA/PG_VERSION" ]; then
  echo "== initdb $PGDATA" >&2
  mkdir -p "$PGDATA"
  chown postgres "$PGDATA" 2>/dev/null || true
  chmod 700 "$PGDATA"
  as_pg "$BIN/initdb" -D "$PGDATA" --auth-local=trust --auth-host=scram-sha-256 -U postgres --no-locale -E UTF8 >&2
  cat >>"$PGDATA/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $PGPORT
unix_socket_directories = '$PGDATA'
max_connections = $PGMAXCONN
fsync = on
synchronous_commit = on
CONF
fi

# The client rules, written every time, so that a cluster initialised by
# an earlier version of this script (TCP trusted) is tightened too.
HBA="$PGDATA/pg_hba.conf"
WANT_HBA="# written by .ci/postgres.sh: the socket (in PGDATA, 0700) trusted, TCP by password
local all all trust
host all all 127.0.0.1/32 scram-sha-256
host all all ::1/128 scram-sha-256"
hba_changed=0
if [ "$(as_pg cat "$HBA" 2>/dev/null)" != "$WANT_HBA" ]; then
  printf '%s\n' "$WANT_HBA" | as_pg tee "$HBA" >/dev/null
  hba_changed=1
fi

if ! as_pg "$BIN/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1; then
  echo "== starting PostgreSQL on 127.0.0.1:$PGPORT" >&2
  as_pg "$BIN/pg_ctl" -D "$PGDATA" -l "$PGDATA/server.log" -w -t 60 start >&2
elif [ "$hba_changed" = 1 ]; then
  as_pg "$BIN/pg_ctl" -D "$PGDATA" reload >&2
fi

PWFILE="$PGDATA/dsn-password"
if ! as_pg test -s "$PWFILE"; then
  od -An -N16 -tx1 /dev/urandom | tr -d ' \n' | as_pg tee "$PWFILE" >/dev/null
  as_pg chmod 600 "$PWFILE"
fi
PGPASSWORD_VALUE="$(as_pg cat "$PWFILE")"

psql_pg() { as_pg psql -h "$PGDATA" -p "$PGPORT" -U postgres -v ON_ERROR_STOP=1 -tA "$@"; }
if [ "$(psql_pg -d postgres -c "SELECT 1 FROM pg_roles WHERE rolname = '$PGUSER_NAME'")" != 1 ]; then
  psql_pg -d postgres -c "CREATE ROLE $PGUSER_NAME LOGIN" >&2
fi
# SCRAM, whatever password_encryption says; the password is hex.
psql_pg -d postgres -c "SET password_encryption = 'scram-sha-256'; ALTER ROLE $PGUSER_NAME PASSWORD '$PGPASSWORD_VALUE'" >/dev/null
if [ "$(psql_pg -d postgres -c "SELECT 1 FROM pg_database WHERE datname = '$PGDB'")" != 1 ]; then
  psql_pg -d postgres -c "CREATE DATABASE $PGDB OWNER $PGUSER_NAME" >&2
fi

echo "postgres://$PGUSER_NAME:$PGPASSWORD_VALUE@127.0.0.1:$PGPORT/$PGDB?sslmode=disable"
