#!/usr/bin/env bash
# Installs what is missing and builds; starts a ZooKeeper and two echo providers registered in it
# (all on loopback, temporary directories); drives one provider directly and then both through
# discovery with ferry-bench. Then the seckill scenario on the chosen backend, with
# `ferry-bench seckill` selling to many buyers (10% of them trying twice) and checking the
# orders, and the operators' Reconcile over HTTP refused without credentials (authz, 403) and
# served for a user token of the role operator. Then the short-link scenario on the same backend: a tenant and its key, links, a real
# `curl -i` of a redirect, `ferry-bench shortlink` (Zipf mix, unknown codes, PV == 302s) and the
# link's statistics. Then the like scenario (scripts/lib/like_demo.sh): one like-server on the
# same kind of backend and `ferry-bench like`, checking every count against the truth the bench
# kept. Calls Echo through the JSON gateway with curl and reads the provider's /status page.
# Prints what happened and stops everything by PID. Safe to rerun.
#   scripts/demo.sh [--backend redis+mariadb|embedded]
#     redis+mariadb (default): Redis, MariaDB and ZooKeeper (Debian's packages) on loopback,
#                    free ports, temporary data directories; three seckill-server providers
#                    registered in ZooKeeper, each leasing its worker id there, purchases routed
#                    by consistent hash on user_id, and one provider SIGKILLed mid-sale
#     embedded: one seckill-server with SQLite in a temporary directory
#   FERRY_DEMO_SECONDS=N   length of each echo load run (default 5)
#   FERRY_BUILD_DIR=DIR    build tree to use (default build)
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/zookeeper.sh"
source "$(dirname "$0")/lib/redis.sh"
source "$(dirname "$0")/lib/mariadb.sh"
source "$(dirname "$0")/lib/seckill_user_token.sh"
source "$(dirname "$0")/lib/paysim.sh"
source "$(dirname "$0")/lib/shortlink.sh"
source "$(dirname "$0")/lib/like_demo.sh"
cd "$FERRY_ROOT"

BACKEND=redis+mariadb
while [ $# -gt 0 ]; do
  case "$1" in
    --backend) BACKEND="${2:-}"; shift 2 || { echo "--backend: needs a value" >&2; exit 2; } ;;
    --backend=*) BACKEND="${1#--backend=}"; shift ;;
    -h | --help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "demo.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
case "$BACKEND" in
  embedded | redis+mariadb) ;;
  *) echo "demo.sh: --backend must be embedded or redis+mariadb, got '$BACKEND'" >&2; exit 2 ;;
esac

ferry_install_packages "${FERRY_PACKAGES[@]}" python3
BUILD_DIR="${FERRY_BUILD_DIR:-build}"
ferry_build "$BUILD_DIR" -- echo-server seckill-server paysim-server shortlink-server like-server \
  ferry-bench ferry-user-token

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
CURL_LINE="curl -s -XPOST http://127.0.0.1:${PORTS[0]}/ferry.demo.EchoService/Echo -H 'Content-Type: application/json' -d '{\"payload\":\"aGVsbG8gZmVycnk=\"}'"
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
  SK_ZK_PORT="$(ferry_free_port)"
  ferry_start_zookeeper "$SK_ZK_PORT" "$SECKILL_DIR/zookeeper"
  SK_REGISTRY="zookeeper://127.0.0.1:$SK_ZK_PORT"
  BACKEND_YAML="  backend: redis+mariadb
  redis: {host: 127.0.0.1, port: $REDIS_PORT, connections: 8}
  mariadb: {host: 127.0.0.1, port: $MARIADB_PORT, user: root, password: '', database: seckill, connections: 8}
  order_writer: {claim_idle_ms: 1000}"
  BACKEND_TEXT="three providers in ZooKeeper $SK_REGISTRY, Redis on 127.0.0.1:$REDIS_PORT (reservations, order stream), MariaDB on 127.0.0.1:$MARIADB_PORT (orders)"
  PROVIDERS=3
  STOCK=20000 BUYERS=30000
  # Long enough for the sale, its checks and the payments before the first deadline: on two
  # cores the order writers settle 20,000 orders in 35 to 65 s, and the payments of the first
  # orders must start well inside their deadline (a payment too near it is refused).
  PAY_TIMEOUT_S=180
  VERIFY_DB=(--verify-db mariadb --db-host 127.0.0.1 --db-port "$MARIADB_PORT" --db-user root --db-name seckill)
else
  BACKEND_YAML="  backend: embedded
  embedded: {path: $SECKILL_DIR/seckill.db, connections: 4}"
  BACKEND_TEXT="SQLite at $SECKILL_DIR/seckill.db"
  PROVIDERS=1
  STOCK=100 BUYERS=5000
  PAY_TIMEOUT_S=20
  VERIFY_DB=(--verify-db sqlite --db-path "$SECKILL_DIR/seckill.db")
fi
# No idgen.worker_id: on redis+mariadb each provider leases its own from the registry's
# ZooKeeper (/ferry/idgen/seckill-orders/workers/<id>); the embedded one is alone on its file.
ferry_seckill_user_token "$SECKILL_DIR"
SECKILL_PORTS=()
for i in $(seq "$PROVIDERS"); do SECKILL_PORTS+=("$(ferry_free_port)"); done
# The simulated payment channel tells the providers of payments: any of them when they are
# registered, else the one.
if [ -n "${SK_REGISTRY:-}" ]; then
  ferry_paysim_start "$BUILD_DIR/bin" "$SECKILL_DIR/paysim" registry "$SK_REGISTRY"
else
  ferry_paysim_start "$BUILD_DIR/bin" "$SECKILL_DIR/paysim" address "127.0.0.1:${SECKILL_PORTS[0]}"
fi
cat >"$SECKILL_DIR/seckill-server.yaml" <<YAML
log: {level: info}
server:
  listen: 127.0.0.1:0
  io_threads: 1
  business_pool: {threads: 4, queue_capacity: 4096}
$SECKILL_FILTERS_YAML
service:
$BACKEND_YAML
$SECKILL_PAYMENTS_YAML
YAML
SECKILL_PIDS=()
for i in $(seq "$PROVIDERS"); do
  ferry_start "seckill-server #$i ($BACKEND)" "seckill-server listening on" 60 \
    "$SECKILL_DIR/seckill-server-$i.log" \
    "$BUILD_DIR"/bin/seckill-server --config "$SECKILL_DIR/seckill-server.yaml" \
    --port "${SECKILL_PORTS[$((i - 1))]}" ${SK_REGISTRY:+--registry "$SK_REGISTRY"}
  SECKILL_PIDS+=("${FERRY_PIDS[-1]}")
done
if [ "$PROVIDERS" -gt 1 ]; then
  SECKILL_TARGET=(--registry "$SK_REGISTRY" --lb consistent_hash --hash-field user_id)
  for i in $(seq "$PROVIDERS"); do
    log "seckill-server #$i: $(grep -ho 'worker id lease [^ ]*' "$SECKILL_DIR/seckill-server-$i.log" || echo 'worker id lease: see its log')"
  done
else
  SECKILL_TARGET=(--target "127.0.0.1:${SECKILL_PORTS[0]}")
fi

log "ferry-bench seckill on the $BACKEND backend ($BACKEND_TEXT): $STOCK units, $BUYERS buyers, 10% try twice"
"$BUILD_DIR"/bin/ferry-bench seckill "${SECKILL_TARGET[@]}" --stock "$STOCK" --buyers "$BUYERS" \
  --dup-ratio 0.1 --conns 2 --depth 8 --duration-limit 60 --settle-timeout 90 "${VERIFY_DB[@]}" \
  "${SECKILL_TOKEN_FLAGS[@]}" --pay-timeout-s "$PAY_TIMEOUT_S" "${PAYSIM_FLAGS[@]}" \
  --pay-ratio 0.25 --await-closes >"$RUN_DIR/seckill.out" 2>&1 &
BENCH_PID=$!
KILL_TEXT="no provider killed (one provider)"
if [ "$PROVIDERS" -gt 1 ]; then
  # Mid-sale: once the first progress line shows purchases being answered.
  PROGRESS='^\[ *[0-9.]*s\] qps=[1-9]'
  until grep -q "$PROGRESS" "$RUN_DIR/seckill.out" 2>/dev/null || ! kill -0 "$BENCH_PID" 2>/dev/null; do
    sleep 0.05
  done
  kill -KILL "${SECKILL_PIDS[1]}" 2>/dev/null &&
    KILL_TEXT="seckill-server #2 (pid ${SECKILL_PIDS[1]}) SIGKILLed after the progress line '$(grep "$PROGRESS" "$RUN_DIR/seckill.out" | tail -n 1)'"
  log "$KILL_TEXT"
fi
BENCH_RC=0
wait "$BENCH_PID" || BENCH_RC=$?
cat "$RUN_DIR/seckill.out"

# authz on the operators' Reconcile: refused with 403 without credentials, served for a user
# token of the role operator (what an operator's console would carry over HTTP).
ACTIVITY_ID="$(sed -n 's/.*summary: activity \([0-9]*\),.*/\1/p' "$RUN_DIR/seckill.out" | head -n 1)"
RECONCILE_URL="http://127.0.0.1:${SECKILL_PORTS[0]}/ferry.seckill.SeckillService/Reconcile"
OPERATOR_TOKEN="$("$BUILD_DIR"/bin/ferry-user-token --key-id scripts \
  --secret-file "$SECKILL_DIR/user-token.secret" --user demo-operator --audience seckill \
  --role operator --ttl 300 2>/dev/null)"
AUTHZ_ANONYMOUS="$(curl -s -o /dev/null -w '%{http_code}' -XPOST "$RECONCILE_URL" \
  -H 'Content-Type: application/json' -d "{\"activityId\":\"${ACTIVITY_ID:-1}\"}")"
AUTHZ_OPERATOR="$(curl -s -o /dev/null -w '%{http_code}' -XPOST "$RECONCILE_URL" \
  -H 'Content-Type: application/json' -H "X-Ferry-Attachment-User-Token: $OPERATOR_TOKEN" -d "{\"activityId\":\"${ACTIVITY_ID:-1}\"}")"
AUTHZ_TEXT="Reconcile of activity ${ACTIVITY_ID:-?} over HTTP: $AUTHZ_ANONYMOUS anonymous, $AUTHZ_OPERATOR with an operator's user token"
log "$AUTHZ_TEXT"

log "stopping seckill-server, paysim-server${REDIS_PORT:+, Redis, MariaDB and ZooKeeper}"
ferry_stop_all

# --- short links ---------------------------------------------------------------------------
SL_DIR="$RUN_DIR/shortlink"
mkdir -p "$SL_DIR"
if [ "$BACKEND" = "redis+mariadb" ]; then
  ferry_shortlink_redis_mariadb "$SL_DIR"
  SL_REDIS_PORT="$SHORTLINK_REDIS_PORT"
  SL_BACKEND_YAML="$SHORTLINK_BACKEND_YAML"
else
  SL_BACKEND_YAML="  backend: embedded
  embedded: {path: $SL_DIR/shortlink.db}"
fi
SL_TOKEN="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"  # 128 bits, the least allowed
SL_PORT="$(ferry_free_port)"
ferry_shortlink_start "$BUILD_DIR/bin" "$SL_DIR" "$SL_PORT" "$SL_TOKEN" "$SL_BACKEND_YAML"
SL_KEY="$(ferry_shortlink_key "$SL_PORT" "$SL_TOKEN" demo)"
SL_API="http://127.0.0.1:$SL_PORT/ferry.shortlink.ShortLinkService"
SL_CREATED="$(curl -s -XPOST "$SL_API/CreateLink" -H "Authorization: Bearer $SL_KEY" \
  -H 'Content-Type: application/json' -d '{"requestId":"demo-1","longUrl":"https://example.com/ferry?from=demo"}')"
log "CreateLink: $SL_CREATED"
SL_CODE="$(sed -n 's/.*"code":"\([^"]*\)".*/\1/p' <<<"$SL_CREATED")"
log "curl -i http://127.0.0.1:$SL_PORT/$SL_CODE"
curl -si -A "Mozilla/5.0 (demo)" -e "https://news.example/post" "http://127.0.0.1:$SL_PORT/$SL_CODE" |
  tee "$RUN_DIR/redirect.txt"
log "ferry-bench shortlink: 1000 links, 100000 redirects (Zipf s=1.1, 5% unknown codes)"
SL_RC=0
"$BUILD_DIR"/bin/ferry-bench shortlink --target "127.0.0.1:$SL_PORT" --api-key "$SL_KEY" \
  --links 1000 --requests 100000 --conns 8 --unknown-probe 10000 | tee "$RUN_DIR/shortlink.out" ||
  SL_RC=$?
SL_STATS="$(curl -s -XPOST "$SL_API/Stats" -H "Authorization: Bearer $SL_KEY" \
  -H 'Content-Type: application/json' -d "{\"code\":\"$SL_CODE\"}")"
log "Stats of /$SL_CODE: $SL_STATS"
log "stopping shortlink-server${SL_REDIS_PORT:+, Redis and MariaDB}"
ferry_stop_all
log "direct:    $(tail -n 1 "$RUN_DIR/direct.out")"
log "discovery: $(tail -n 1 "$RUN_DIR/discovery.out")"
log "seckill ($BACKEND): $(grep '^answers:' "$RUN_DIR/seckill.out")"
log "seckill ($BACKEND): $(grep '^payments:' "$RUN_DIR/seckill.out")"
log "seckill ($BACKEND): $(grep '^check:' "$RUN_DIR/seckill.out")"
log "seckill ($BACKEND): $(tail -n 1 "$RUN_DIR/seckill.out")"
log "seckill ($BACKEND): $KILL_TEXT"
log "seckill ($BACKEND): $AUTHZ_TEXT"
log "shortlink ($BACKEND): $(head -n 1 "$RUN_DIR/redirect.txt" | tr -d '\r'), $(grep -i '^location:' "$RUN_DIR/redirect.txt" | tr -d '\r')"
log "shortlink ($BACKEND): $(tail -n 1 "$RUN_DIR/shortlink.out")"
log "echo-server's status page, while it ran: $STATUS_URL (also /status.json, /metrics, /health, /ready)"
log "Echo through the JSON gateway: $CURL_LINE"
log "  answered: $GATEWAY_ANSWER"
log "What it did: created an activity ($STOCK units, open from a second ago for 10 minutes),
    preheated it, sent purchases from $BUYERS distinct users (5% of them repeated the same
    request id, 5% bought again with a new one) to $PROVIDERS provider(s), waited for the orders
    to settle (at once on embedded, which writes them inside the purchase; on redis+mariadb once
    the order writers have moved every reservation from the Redis stream into MariaDB,
    including those the killed provider had taken and not written), and checked with
    Reconcile, GetResult and the database itself (--verify-db): exactly $STOCK orders, nobody
    with two, every retry answered as its first purchase, every ACCEPTED purchase an order of
    its buyer. Then a quarter of the buyers paid at the simulated payment channel
    (paysim-server), which told the providers; each paid order had to turn PAID. One of its
    notifications was sent again and one was sent with a wrong amount: both had to change
    nothing. The other orders were left unpaid: after the ${PAY_TIMEOUT_S} s pay timeout each
    had to be closed and its unit back in the stock."
if [ "$SL_RC" -ne 0 ]; then
  echo "demo.sh: ferry-bench shortlink failed (exit $SL_RC): $(tail -n 1 "$RUN_DIR/shortlink.out")" >&2
  exit 1
fi
if [ "$BENCH_RC" -ne 0 ]; then
  echo "demo.sh: ferry-bench seckill failed (exit $BENCH_RC): $(grep '^check:' "$RUN_DIR/seckill.out")" >&2
  exit 1
fi
if [ "$AUTHZ_ANONYMOUS" != 403 ] || [ "$AUTHZ_OPERATOR" != 200 ]; then
  echo "demo.sh: authz: $AUTHZ_TEXT (expected 403 and 200)" >&2
  exit 1
fi

# --- like ----------------------------------------------------------------------------------
ferry_like_demo "$BACKEND" "$BUILD_DIR" "$RUN_DIR"
log "like ($BACKEND): $LIKE_CHECK_LINE"
log "like ($BACKEND): $LIKE_RESULT_LINE"
if [ "$LIKE_RC" -ne 0 ]; then
  echo "demo.sh: ferry-bench like failed (exit $LIKE_RC): $LIKE_CHECK_LINE" >&2
  exit 1
fi
