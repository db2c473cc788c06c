#!/bin/sh
# The official image's start, in short: a first start makes the cluster, its user and database; every
# start runs the server as the postgres user, listening on every address with passwords required. Started
# as root it owns the folders first and drops to postgres; started as postgres (uid 999, as
# deploy/trial/postgres.yaml runs it, on a read-only root) it runs as it is, writing only to PGDATA,
# /run/postgresql and /tmp.
set -eu
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /run/postgresql
  chown -R postgres:postgres "$PGDATA" /run/postgresql
  as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }
else
  mkdir -p "$PGDATA"
  as_postgres() { "$@"; }
fi
chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
  [ "$(id -u)" != 0 ] || chown postgres "$pwfile"
  as_postgres initdb --username="$POSTGRES_USER" --pwfile="$pwfile" --auth=scram-sha-256 -D "$PGDATA" >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  as_postgres pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  if [ "${POSTGRES_DB:-postgres}" != postgres ]; then
    PGPASSWORD="$POSTGRES_PASSWORD" as_postgres psql -v ON_ERROR_STOP=1 --username="$POSTGRES_USER" \
      --dbname=postgres -c "CREATE DATABASE \"$POSTGRES_DB\"" >/dev/null
  fi
  as_postgres pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
fi
set -- postgres -D "$PGDATA" -c listen_addresses='*'
if [ "$(id -u)" = 0 ]; then exec setpriv --reuid=postgres --regid=postgres --init-groups "$@"; fi
exec "$@"
