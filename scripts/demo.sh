#!/usr/bin/env bash
# Installs what is missing and builds; starts a ZooKeeper and two echo providers registered in it
# (all on loopback, temporary directories); drives one provider directly and then both through
# discovery with ferry-bench. Then the seckill scenario: a seckill-server on the chosen backend,
# and `ferry-bench seckill` selling 100 units to 5,000 buyers (10% of them trying twice) and
# checking the orders. Calls Echo through the JSON gateway with curl and reads the provider's
# /status page. Prints what happened and stops everything by PID. Safe to rerun.
#   scripts/demo.sh [--backend embedded|redis+mariadb]
#     embedded (default): SQLite in a temporary directory, nothing else to start
#     redis+mariadb: also starts Redis and MariaDB (Debian's packages) on loopback, free ports,
#                    temporary data directories
#   FERRY_DEMO_SECONDS=N   length of each echo load run (default 5)
#   FERRY_BUILD_DIR=DIR    build tree to use (default build)
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/zookeeper.sh"
source "$(dirname "$0")/lib/redis.sh"
source "$(dirname "$0")/lib/mariadb.sh"
source "$(dirname "$0")/lib/seckill_user_token.sh"
cd "$FERRY_ROOT"

BACKEND=embedded
while [ $# -gt 0 ]; do
  case "$1" in
    --backend) BACKEND="${2:-}"; shift 2 || { echo "--backend: needs a value" >&2; exit 2; } ;;
    --backend=*) BACKEND="${1#--backend=}"; shift ;;
    -h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "demo.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
case "$BACKEND" in
  embedded | redis+mariadb) ;;
  *) echo "demo.sh: --backend must be embedded or redis+mariadb, got '$BACKEND'" >&2; exit 2 ;;
esac

ferry_install_packages "${FERRY_PACKAGES[@]}" python3
BUILD_DIR="${FERRY_BUILD_DIR:-build}"
ferry_build "$BUILD_DIR" -- echo-server seckill-server ferry-bench

RUN_DIR="$(mktemp -d /tmp/ferry-demo.XXXXXX)"
trap 'ferry_stop_all; rm -rf "$RUN_DIR"' EXIT
SECONDS_TO_RUN="${FERRY_DEMO_SECONDS:-5}"

ZK_PORT="$(ferry_free_port)"
ferry_start_zookeeper "$ZK_PORT" "$RUN_DIR/zookeeper"
REGISTRY="zookeeper://127.0.0.1:$ZK_PORT"

PORTS=()
for i in 1 2; do
  port="$(ferry_free_port)"
  PORTS+=("$port")
  ferry_start "echo-server #$i" "echo-server listening on" 30 "$RUN_DIR/echo-server-$i.log" \
    "$BUILD_DIR"/bin/echo-server --config demo-services/echo/config/echo-server.yaml --port "$port" \
    --registry "$REGISTRY"
done

log "ferry-bench direct to 127.0.0.1:${PORTS[0]}: 4 connections x 32 outstanding, 16 B, ${SECONDS_TO_RUN}s"
"$BUILD_DIR"/bin/ferry-bench echo --target "127.0.0.1:${PORTS[0]}" --conns 4 --depth 32 --size 16 \
  --duration "$SECONDS_TO_RUN" | tee "$RUN_DIR/direct.out"

log "ferry-bench through $REGISTRY (both providers, round robin), same load"
"$BUILD_DIR"/bin/ferry-bench echo --registry "$REGISTRY" --conns 4 --depth 32 --size 16 \
  --duration "$SECONDS_TO_RUN" | tee "$RUN_DIR/discovery.out"

# HTTP on the same port: the JSON gateway and the admin pages, while the providers still run.
STATUS_URL="http://127.0.0.1:${PORTS[0]}/status"
CURL_LINE="curl -s -XPOST http://127.0.0.1:${PORTS[0]}/ferry.demo.EchoService/Echo -d '{\"payload\":\"aGVsbG8gZmVycnk=\"}'"
log "calling Echo through the JSON gateway: $CURL_LINE"
GATEWAY_ANSWER="$(eval "$CURL_LINE")"
echo "$GATEWAY_ANSWER"
curl -s "$STATUS_URL" >"$RUN_DIR/status.html"
STATUS_ROW="$(grep -o '<tr><td>ferry.demo.EchoService</td><td>Echo</td>.*</tr>' "$RUN_DIR/status.html" |
  sed -e 's/<\/td><td>/ | /g' -e 's/<[^>]*>//g')"
log "its /status page lists (service | method | QPS | p50 ms | p99 ms | calls | errors): $STATUS_ROW"

log "stopping providers and ZooKeeper"
ferry_stop_all

# --- seckill -------------------------------------------------------------------------------
SECKILL_DIR="$RUN_DIR/seckill"
mkdir -p "$SECKILL_DIR"
if [ "$BACKEND" = "redis+mariadb" ]; then
  REDIS_PORT="$(ferry_free_port)"
  ferry_start_redis "$REDIS_PORT" "$SECKILL_DIR/redis" --appendonly yes --appendfsync everysec
  MARIADB_PORT="$(ferry_free_port)"
  ferry_start_mariadb "$MARIADB_PORT" "$SECKILL_DIR/mariadb" seckill
  BACKEND_YAML="  backend: redis+mariadb
  redis: {host: 127.0.0.1, port: $REDIS_PORT, connections: 8}
  mariadb: {host: 127.0.0.1, port: $MARIADB_PORT, user: root, password: '', database: seckill, connections: 8}"
  BACKEND_TEXT="Redis on 127.0.0.1:$REDIS_PORT (reservations, order stream) and MariaDB on 127.0.0.1:$MARIADB_PORT (orders)"
  VERIFY_DB=(--verify-db mariadb --db-host 127.0.0.1 --db-port "$MARIADB_PORT" --db-user root --db-name seckill)
else
  BACKEND_YAML="  backend: embedded
  embedded: {path: $SECKILL_DIR/seckill.db, connections: 4}"
  BACKEND_TEXT="SQLite at $SECKILL_DIR/seckill.db"
  VERIFY_DB=(--verify-db sqlite --db-path "$SECKILL_DIR/seckill.db")
fi
ferry_seckill_user_token "$SECKILL_DIR"
cat >"$SECKILL_DIR/seckill-server.yaml" <<YAML
log: {level: warn}
server:
  listen: 127.0.0.1:0
  io_threads: 1
  business_pool: {threads: 4, queue_capacity: 4096}
$SECKILL_FILTERS_YAML
service:
$BACKEND_YAML
  idgen: {worker_id: 1}
YAML
SECKILL_PORT="$(ferry_free_port)"
ferry_start "seckill-server ($BACKEND)" "seckill-server listening on" 60 \
  "$SECKILL_DIR/seckill-server.log" \
  "$BUILD_DIR"/bin/seckill-server --config "$SECKILL_DIR/seckill-server.yaml" --port "$SECKILL_PORT"

log "ferry-bench seckill on the $BACKEND backend ($BACKEND_TEXT): 100 units, 5000 buyers, 10% try twice"
"$BUILD_DIR"/bin/ferry-bench seckill --target "127.0.0.1:$SECKILL_PORT" --stock 100 --buyers 5000 \
  --dup-ratio 0.1 --conns 4 --depth 32 --duration-limit 60 --settle-timeout 60 "${VERIFY_DB[@]}" \
  "${SECKILL_TOKEN_FLAGS[@]}" |
  tee "$RUN_DIR/seckill.out"

log "stopping seckill-server${REDIS_PORT:+, Redis and MariaDB}"
ferry_stop_all
log "direct:    $(tail -n 1 "$RUN_DIR/direct.out")"
log "discovery: $(tail -n 1 "$RUN_DIR/discovery.out")"
log "seckill ($BACKEND): $(grep '^answers:' "$RUN_DIR/seckill.out")"
log "seckill ($BACKEND): $(grep '^check:' "$RUN_DIR/seckill.out")"
log "seckill ($BACKEND): $(tail -n 1 "$RUN_DIR/seckill.out")"
log "echo-server's status page, while it ran: $STATUS_URL (also /status.json, /metrics, /health, /ready)"
log "Echo through the JSON gateway: $CURL_LINE"
log "  answered: $GATEWAY_ANSWER"
log "What it did: created an activity (100 units, open from a second ago for 10 minutes),
    preheated it, sent 5,500 purchases from 5,000 distinct users (250 of them repeated the
    same request id, 250 bought again with a new one), waited for the orders to settle (at
    once on embedded, which writes them inside the purchase; on redis+mariadb once the order
    writer has moved every reservation from the Redis stream into MariaDB), and checked with
    Reconcile, GetResult and the database itself (--verify-db): exactly 100 orders, nobody with
    two, every retry answered as its first purchase, every ACCEPTED purchase an order of its
    buyer."
