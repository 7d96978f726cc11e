#!/usr/bin/env bash
# The scale-out topology on this machine, for tests, CI and the fleet benchmark (docs/operating-at-scale.md):
#   - Debian's PgBouncer in transaction mode in front of the local PostgreSQL (a non-systemd process), and
#   - a streaming replica of that PostgreSQL: a second cluster made with pg_basebackup, on its own port.
# Idempotent: what already runs is left running. Root runs the servers as the postgres user.
#
#   scripts/ci-scale-up.sh [up]        start both (create the replica first if needed); prints the URLs
#   scripts/ci-scale-up.sh delay MS    the replica applies WAL MS milliseconds late (recovery_min_apply_delay); 0 = at once
#   scripts/ci-scale-up.sh stop-replica | start-replica
#   scripts/ci-scale-up.sh down        stop both (the replica's files stay for the next up)
#   scripts/ci-scale-up.sh env         the variables for a Hub (DATABASE_URL … through the pooler, for database postgres)
#
# Variables: SCALE_PRIMARY_URL (postgres://postgres@127.0.0.1:5432/postgres), SCALE_POOLER_PORT (5632),
# SCALE_REPLICA_PORT (5633), SCALE_POOL_SIZE (10), SCALE_DIR (/tmp/scale-up).
set -euo pipefail

PRIMARY_HOST=127.0.0.1
PRIMARY_PORT=${SCALE_PRIMARY_PORT:-5432}
POOLER_PORT=${SCALE_POOLER_PORT:-5632}
REPLICA_PORT=${SCALE_REPLICA_PORT:-5633}
POOL_SIZE=${SCALE_POOL_SIZE:-10}
DIR=${SCALE_DIR:-/tmp/scale-up}
REPLICA_DIR=$DIR/replica
STATEMENT_TIMEOUT_MS=${HUB_DB_STATEMENT_TIMEOUT_MS:-15000}
PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)

as_postgres() {
  if [ "$(id -un)" = postgres ]; then "$@"; else runuser -u postgres -- "$@"; fi
}

log() { printf '[scale-up] %s\n' "$*" >&2; }

primary_psql() { psql -h "$PRIMARY_HOST" -p "$PRIMARY_PORT" -U postgres -d postgres -Atqc "$1"; }

ensure_dir() {
  mkdir -p "$DIR"
  chown postgres:postgres "$DIR" 2>/dev/null || true
  chmod 700 "$DIR"
}

# Replication connections from 127.0.0.1 (pg_hba's "all" does not cover the replication pseudo-database).
ensure_replication_access() {
  local hba
  hba=$(primary_psql 'show hba_file')
  if ! grep -Eq '^[[:space:]]*host[[:space:]]+replication[[:space:]]+all[[:space:]]+127\.0\.0\.1/32' "$hba"; then
    log "allowing replication connections from 127.0.0.1 in $hba"
    printf '\n# scripts/ci-scale-up.sh: streaming replica on this machine\nhost replication all 127.0.0.1/32 trust\n' >> "$hba"
    primary_psql 'select pg_reload_conf()' >/dev/null
    sleep 1
  fi
}

replica_running() { as_postgres "$PGBIN/pg_ctl" -D "$REPLICA_DIR" status >/dev/null 2>&1; }

create_replica() {
  ensure_replication_access
  log "pg_basebackup of $PRIMARY_HOST:$PRIMARY_PORT into $REPLICA_DIR"
  rm -rf "$REPLICA_DIR"
  as_postgres "$PGBIN/pg_basebackup" -h "$PRIMARY_HOST" -p "$PRIMARY_PORT" -U postgres -D "$REPLICA_DIR" -X stream -R -c fast
  # The primary's configuration came with the copy: this cluster's own port, sockets, log, no archiving.
  cat >> "$REPLICA_DIR/postgresql.auto.conf" <<EOF
port = $REPLICA_PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = '$DIR'
hot_standby = on
hot_standby_feedback = on
max_standby_streaming_delay = 30s
archive_mode = off
logging_collector = off
recovery_min_apply_delay = 0
EOF
}

start_replica() {
  if replica_running; then return; fi
  [ -f "$REPLICA_DIR/standby.signal" ] || create_replica
  log "starting the replica on port $REPLICA_PORT"
  # Debian keeps postgresql.conf in /etc: the copy has none; the primary's data_directory/hba paths are not wanted.
  if [ ! -f "$REPLICA_DIR/postgresql.conf" ]; then
    touch "$REPLICA_DIR/postgresql.conf" && chown postgres:postgres "$REPLICA_DIR/postgresql.conf"
  fi
  if [ ! -f "$REPLICA_DIR/pg_hba.conf" ]; then
    printf 'local all all trust\nhost all all 127.0.0.1/32 trust\n' > "$REPLICA_DIR/pg_hba.conf"
    chown postgres:postgres "$REPLICA_DIR/pg_hba.conf"
  fi
  if ! as_postgres "$PGBIN/pg_ctl" -D "$REPLICA_DIR" -l "$DIR/replica.log" -w -t 60 start >/dev/null; then
    # A replica left behind too long (the primary no longer has its WAL) or a broken copy: make it again.
    log "the replica did not start (see $DIR/replica.log); making it again"
    create_replica
    as_postgres "$PGBIN/pg_ctl" -D "$REPLICA_DIR" -l "$DIR/replica.log" -w -t 60 start >/dev/null
  fi
  for _ in $(seq 60); do
    [ "$(psql -h 127.0.0.1 -p "$REPLICA_PORT" -U postgres -d postgres -Atqc 'select pg_is_in_recovery()' 2>/dev/null)" = t ] && return
    sleep 0.5
  done
  log "the replica does not answer on port $REPLICA_PORT"; exit 1
}

# Streaming from the primary now (a copy left from an earlier run can start yet never catch up: the primary has
# recycled the WAL it needs, and the replica then serves an old snapshot forever).
replica_streaming() {
  for _ in $(seq 40); do
    [ "$(psql -h 127.0.0.1 -p "$REPLICA_PORT" -U postgres -d postgres -Atqc \
      "select status from pg_stat_wal_receiver" 2>/dev/null)" = streaming ] && return 0
    sleep 0.5
  done
  return 1
}

# For `up`: a replica that streams; anything else is made again from a fresh base backup.
fresh_replica() {
  start_replica
  if ! replica_streaming; then
    log "the replica is not streaming from the primary (see $DIR/replica.log); making it again"
    stop_replica
    create_replica
    start_replica
    replica_streaming || { log "the new replica does not stream either"; exit 1; }
  fi
}

stop_replica() {
  if replica_running; then as_postgres "$PGBIN/pg_ctl" -D "$REPLICA_DIR" -m fast -w stop >/dev/null; fi
}

set_delay() {
  local ms=$1
  sed -i '/^recovery_min_apply_delay/d' "$REPLICA_DIR/postgresql.auto.conf"
  echo "recovery_min_apply_delay = ${ms}ms" >> "$REPLICA_DIR/postgresql.auto.conf"
  if replica_running; then as_postgres "$PGBIN/pg_ctl" -D "$REPLICA_DIR" reload >/dev/null; fi
  log "replica apply delay: ${ms} ms"
}

pooler_running() { [ -f "$DIR/pgbouncer.pid" ] && kill -0 "$(cat "$DIR/pgbouncer.pid")" 2>/dev/null; }

start_pooler() {
  if pooler_running; then return; fi
  if ! command -v pgbouncer >/dev/null; then
    log "pgbouncer is not installed: apt-get install -y pgbouncer"; exit 1
  fi
  # docs/pgbouncer.ini with this machine's ports and files.
  sed -e "s|^listen_port = .*|listen_port = $POOLER_PORT|" \
      -e "s|^default_pool_size = .*|default_pool_size = $POOL_SIZE|" \
      -e "s|^max_db_connections = .*|max_db_connections = $POOL_SIZE|" \
      -e "s|^unix_socket_dir = .*|unix_socket_dir = $DIR|" \
      -e "s|^auth_file = .*|auth_file = $DIR/userlist.txt|" \
      -e "s|^logfile = .*|logfile = $DIR/pgbouncer.log|" \
      -e "s|^pidfile = .*|pidfile = $DIR/pgbouncer.pid|" \
      -e "s|statement_timeout = [0-9]*|statement_timeout = $STATEMENT_TIMEOUT_MS|" \
      -e "s|host=127.0.0.1 port=5432|host=$PRIMARY_HOST port=$PRIMARY_PORT|" \
      "$(dirname "$0")/../docs/pgbouncer.ini" > "$DIR/pgbouncer.ini"
  echo '"postgres" ""' > "$DIR/userlist.txt"
  chown postgres:postgres "$DIR/pgbouncer.ini" "$DIR/userlist.txt"
  log "starting pgbouncer (transaction mode) on port $POOLER_PORT"
  as_postgres "$(command -v pgbouncer)" -d "$DIR/pgbouncer.ini"
  for _ in $(seq 40); do
    psql -h 127.0.0.1 -p "$POOLER_PORT" -U postgres -d postgres -Atqc 'select 1' >/dev/null 2>&1 && return
    sleep 0.25
  done
  log "pgbouncer does not answer on port $POOLER_PORT (see $DIR/pgbouncer.log)"; exit 1
}

stop_pooler() {
  if pooler_running; then kill "$(cat "$DIR/pgbouncer.pid")"; sleep 0.5; fi
}

print_env() {
  cat <<EOF
DATABASE_URL=postgres://postgres@127.0.0.1:$POOLER_PORT/postgres
DATABASE_POOL_MODE=transaction
DATABASE_DIRECT_URL=postgres://postgres@$PRIMARY_HOST:$PRIMARY_PORT/postgres
DATABASE_READ_URL=postgres://postgres@127.0.0.1:$REPLICA_PORT/postgres
EOF
}

case "${1:-up}" in
  up) ensure_dir; fresh_replica; start_pooler; print_env ;;
  delay) set_delay "${2:?delay in milliseconds}" ;;
  stop-replica) stop_replica ;;
  start-replica) ensure_dir; start_replica ;;
  down) stop_pooler; stop_replica ;;
  env) print_env ;;
  *) echo "usage: $0 [up|delay MS|stop-replica|start-replica|down|env]" >&2; exit 2 ;;
esac
