#!/bin/sh
# The official image's start, in short: a first start makes the cluster, its user and database; every
# start runs the server as the postgres user, listening on every address with passwords required.
set -eu
mkdir -p "$PGDATA" /run/postgresql
chown -R postgres:postgres "$PGDATA" /run/postgresql
chmod 700 "$PGDATA"
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  printf '%s\n' "$POSTGRES_PASSWORD" > /tmp/pwfile
  chown postgres /tmp/pwfile
  as_postgres initdb --username="$POSTGRES_USER" --pwfile=/tmp/pwfile --auth=scram-sha-256 -D "$PGDATA" >/dev/null
  rm -f /tmp/pwfile
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  as_postgres pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  if [ "${POSTGRES_DB:-postgres}" != postgres ]; then
    PGPASSWORD="$POSTGRES_PASSWORD" as_postgres psql -v ON_ERROR_STOP=1 --username="$POSTGRES_USER" \
      --dbname=postgres -c "CREATE DATABASE \"$POSTGRES_DB\"" >/dev/null
  fi
  as_postgres pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
fi
exec setpriv --reuid=postgres --regid=postgres --init-groups postgres -D "$PGDATA" -c listen_addresses='*'
