#!/usr/bin/env bash
# The seckill purchase path measured three ways in one run, at one concurrency
# (C connections x D outstanding = C*D redis-benchmark clients), all on loopback:
#   1. bare script: redis-benchmark calling the seckill Reserve Lua script by SHA (the very source
#      seckill-server loads, read from demo-services/seckill/storage/redis_scripts.cc) on a
#      preheated stock of 10^9, with __rand_int__ user and request ids: every call takes the
#      accept path (decrement, buyer set, request hash, XADD to the order stream);
#   2. ferry-bench seckill end to end on the redis+mariadb backend, stock == buyers, so every
#      purchase is accepted too and becomes a MariaDB order (the settle time is how long the
#      order writer takes to catch up after the burst);
#   3. the same on the embedded backend (SQLite, orders written inside the purchase).
# Prints a Markdown table, the end-to-end / bare-script QPS ratio (issue target: >= 0.50) and the
# settle times. Starts Redis, MariaDB and the providers itself and stops them by PID.
#   FERRY_SECKILL_CONNS (default 4), FERRY_SECKILL_DEPTH (default 32)
#   FERRY_SECKILL_BUYERS (default 50000): purchases per ferry-bench run (= stock)
#   FERRY_SECKILL_SCRIPT_CALLS (default 200000): redis-benchmark calls
#   FERRY_SECKILL_SALE=0 skips the extra row of a contended sale (100 units, 10% duplicates)
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/seckill_user_token.sh"
source "$(dirname "$0")/lib/redis.sh"
source "$(dirname "$0")/lib/mariadb.sh"
cd "$FERRY_ROOT"

CONNS="${FERRY_SECKILL_CONNS:-4}"
DEPTH="${FERRY_SECKILL_DEPTH:-32}"
BUYERS="${FERRY_SECKILL_BUYERS:-50000}"
SCRIPT_CALLS="${FERRY_SECKILL_SCRIPT_CALLS:-200000}"
SALE_ROW="${FERRY_SECKILL_SALE:-1}"
CONCURRENCY=$((CONNS * DEPTH))
BUILD_DIR="${FERRY_BUILD_DIR:-build}"

ferry_install_packages "${FERRY_PACKAGES[@]}" python3
ferry_build "$BUILD_DIR" -- seckill-server ferry-bench
BIN="$BUILD_DIR/bin"

RUN_DIR="$(mktemp -d /tmp/ferry-bench-seckill.XXXXXX)"
ferry_seckill_user_token "$RUN_DIR"
trap 'ferry_stop_all; rm -rf "$RUN_DIR"' EXIT

REDIS_PORT="$(ferry_free_port)"
ferry_start_redis "$REDIS_PORT" "$RUN_DIR/redis" --appendonly yes --appendfsync everysec
MARIADB_PORT="$(ferry_free_port)"
ferry_start_mariadb "$MARIADB_PORT" "$RUN_DIR/mariadb" seckill
redis() { redis-cli -h 127.0.0.1 -p "$REDIS_PORT" "$@"; }

# seckill_server <name> <backend yaml lines>: starts one provider on port $SECKILL_PORT.
seckill_server() {
  local name="$1" backend_yaml="$2"
  SECKILL_PORT="$(ferry_free_port)"
  cat >"$RUN_DIR/$name.yaml" <<YAML
log: {level: warn}
server:
  listen: 127.0.0.1:0
  io_threads: 1
  business_pool: {threads: 16, queue_capacity: 8192}
$SECKILL_FILTERS_YAML
service:
$backend_yaml
  idgen: {worker_id: 1}
YAML
  ferry_start "seckill-server ($name)" "seckill-server listening on" 60 "$RUN_DIR/$name.log" \
    "$BIN/seckill-server" --config "$RUN_DIR/$name.yaml" --port "$SECKILL_PORT"
}

# The Reserve script exactly as the provider loads it: the helper macro's string literals
# followed by the raw string kReserveSource.
python3 - "$FERRY_ROOT/demo-services/seckill/storage/redis_scripts.cc" >"$RUN_DIR/reserve.lua" <<'PY'
import codecs, re, sys
src = open(sys.argv[1]).read()
macro = re.search(r'#define FERRY_SECKILL_LUA_HELPERS(.*?)\n\n', src, re.S).group(1)
helpers = ''.join(codecs.decode(s, 'unicode_escape')
                  for s in re.findall(r'"((?:[^"\\]|\\.)*)"', macro))
body = re.search(r'kReserveSource = FERRY_SECKILL_LUA_HELPERS R"lua\((.*?)\)lua"', src, re.S)
sys.stdout.write(helpers + body.group(1))
PY
SHA="$(sha1sum "$RUN_DIR/reserve.lua" | cut -d' ' -f1)"

seckill_server redis+mariadb "  backend: redis+mariadb
  redis: {host: 127.0.0.1, port: $REDIS_PORT, connections: 16}
  mariadb: {host: 127.0.0.1, port: $MARIADB_PORT, user: root, password: '', database: seckill, connections: 8}"
REDIS_PROVIDER_PORT="$SECKILL_PORT"
if [ "$(redis SCRIPT EXISTS "$SHA" | tr -d '[:space:]')" = "1" ]; then
  log "Reserve script $SHA: the one seckill-server loaded"
else
  log "warning: seckill-server did not load $SHA; the extracted source may be stale; loading it"
  [ "$(redis -x SCRIPT LOAD <"$RUN_DIR/reserve.lua")" = "$SHA" ]
fi

# --- 1. the bare script ----------------------------------------------------------------------
BARE_ACTIVITY=999999999
P="seckill:{$BARE_ACTIVITY:1}:"
KEYS=("${P}stock" "${P}loaded" "${P}buyers" "${P}requests" "${P}accepted" "${P}orders")
redis DEL "${KEYS[@]}" "${P}released" >/dev/null
redis SET "${P}stock" 1000000000 >/dev/null
# The loaded marker holds the cache generation (epoch) every call names: 1 here.
redis SET "${P}loaded" 1 >/dev/null
NOW_MS=$(($(date +%s%N) / 1000000))
log "redis-benchmark: EVALSHA reserve, $CONCURRENCY clients, $SCRIPT_CALLS calls, accept path"
redis-benchmark -h 127.0.0.1 -p "$REDIS_PORT" -c "$CONCURRENCY" -n "$SCRIPT_CALLS" \
  -r 2000000000 --csv EVALSHA "$SHA" 6 "${KEYS[@]}" "$BARE_ACTIVITY" 1 \
  "u:__rand_int__" "r:__rand_int__" 1 "$NOW_MS" 1 | tee "$RUN_DIR/bare.csv"
# "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
BARE_LINE="$(tail -n 1 "$RUN_DIR/bare.csv" | tr -d '"')"
BARE_QPS="$(echo "$BARE_LINE" | awk -F, '{printf "%d", $2}')"
BARE_P50="$(echo "$BARE_LINE" | awk -F, '{printf "%d", $5 * 1000}')"
BARE_P99="$(echo "$BARE_LINE" | awk -F, '{printf "%d", $7 * 1000}')"
BARE_ACCEPTED="$(redis GET "${P}accepted")"
BARE_STREAM="$(redis XLEN "${P}orders")"
log "bare script: $BARE_ACCEPTED of $SCRIPT_CALLS calls accepted, $BARE_STREAM order events"
redis DEL "${KEYS[@]}" >/dev/null

# --- 2./3. end to end ------------------------------------------------------------------------
# run <label> <port> <stock> <buyers> <dup ratio>: the ferry-bench output goes to $RUN_DIR/<label>.out
run() {
  local label="$1" port="$2" stock="$3" buyers="$4" dup="$5"
  log "ferry-bench seckill ($label): stock $stock, $buyers buyers, dup-ratio $dup, $CONNS x $DEPTH"
  "$BIN/ferry-bench" seckill --target "127.0.0.1:$port" --stock "$stock" --buyers "$buyers" \
    --dup-ratio "$dup" --conns "$CONNS" --depth "$DEPTH" --duration-limit 300 \
    --settle-timeout 300 --timeout-ms 10000 "${SECKILL_TOKEN_FLAGS[@]}" |
    tee "$RUN_DIR/$label.out" || true
}
field() { sed -n "s/.* $2=\(-\{0,1\}[0-9]*\).*/\1/p" "$RUN_DIR/$1.out" | tail -n 1; }
check() { sed -n 's/^check: \([A-Z]*\).*/\1/p' "$RUN_DIR/$1.out"; }

run redis "$REDIS_PROVIDER_PORT" "$BUYERS" "$BUYERS" 0
if [ "$SALE_ROW" != 0 ]; then run redis-sale "$REDIS_PROVIDER_PORT" 100 "$BUYERS" 0.1; fi
seckill_server embedded "  backend: embedded
  embedded: {path: $RUN_DIR/seckill.db, connections: 4}"
EMBEDDED_PORT="$SECKILL_PORT"
run embedded "$EMBEDDED_PORT" "$BUYERS" "$BUYERS" 0
if [ "$SALE_ROW" != 0 ]; then run embedded-sale "$EMBEDDED_PORT" 100 "$BUYERS" 0.1; fi
ferry_stop_all

row() {
  local label="$1" what="$2" backend="$3" shape="$4"
  printf '| %s | %s | %s x %s | %s | %s | %s | %s | %s | %s / %s | %s |\n' "$what" "$backend" \
    "$CONNS" "$DEPTH" "$shape" "$(field "$label" qps)" "$(field "$label" p50_us)" \
    "$(field "$label" p99_us)" "$(field "$label" settle_ms)" "$(field "$label" orders)" \
    "$(field "$label" stock)" "$(check "$label")"
}
echo
echo "Seckill purchase path, $CONCURRENCY calls in flight, loopback, $(nproc) cores" \
  "(Redis $(redis-server --version | sed -n 's/.*v=\([0-9.]*\).*/\1/p'), $(mariadbd --version | awk '{print $3}'))"
echo
echo '| what | backend | conns x depth | purchases | QPS | p50 µs | p99 µs | settle ms | orders / stock | check |'
echo '|---|---|---:|---|---:|---:|---:|---:|---:|---|'
printf '| redis-benchmark EVALSHA reserve (bare script) | Redis | %s clients | %s, accept path | %s | %s | %s | – | %s accepted | – |\n' \
  "$CONCURRENCY" "$SCRIPT_CALLS" "$BARE_QPS" "$BARE_P50" "$BARE_P99" "$BARE_ACCEPTED"
row redis "ferry-bench seckill, every purchase accepted" redis+mariadb "$BUYERS, stock $BUYERS"
[ "$SALE_ROW" = 0 ] || row redis-sale "ferry-bench seckill, contended sale" redis+mariadb \
  "$BUYERS buyers +10% repeats, stock 100"
row embedded "ferry-bench seckill, every purchase accepted" "embedded (SQLite)" "$BUYERS, stock $BUYERS"
[ "$SALE_ROW" = 0 ] || row embedded-sale "ferry-bench seckill, contended sale" "embedded (SQLite)" \
  "$BUYERS buyers +10% repeats, stock 100"
echo
E2E_QPS="$(field redis qps)"
RATIO="$(awk -v a="$E2E_QPS" -v b="$BARE_QPS" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }')"
echo "End-to-end / bare-script QPS (redis+mariadb, accept path): $E2E_QPS / $BARE_QPS = $RATIO (target >= 0.50)"
echo "Orders settled after the burst: redis+mariadb $(field redis settle_ms) ms for $(field redis orders) orders" \
  "(order writer, Redis stream -> MariaDB); embedded $(field embedded settle_ms) ms (written inside each purchase)"
for label in redis redis-sale embedded embedded-sale; do
  [ -f "$RUN_DIR/$label.out" ] || continue
  [ "$(check "$label")" = PASS ] || { echo "check failed in the $label run" >&2; exit 1; }
done
