#!/usr/bin/env bash
# The like service measured in one run, at one concurrency (C connections x D
# outstanding = C*D bare clients), all on loopback:
#   1. bare script, two ways, on an empty Redis each: the SetLike Lua script by SHA (the very
#      source like-server loads, read from demo-services/like/storage/redis_like_scripts.cc)
#      a. called by bare-like-script-bench with ferry-bench like's workload (Zipf over 1000
#         contents of 4 buckets each, 10^6 users, each in its bucket): the peer of run 2;
#      b. called by redis-benchmark on one loaded bucket with __rand_int__ users (what
#         redis-benchmark can do: it varies each argument on its own);
#      almost every call is a real like (SADD, INCR, version HSET, XADD to the bucket's stream);
#   2. ferry-bench like, SetLike only, on the redis+mariadb backend (redis-first): many users and
#      no unlikes, so almost every call is a real like too; then the check that every count
#      equals the truth once the event writers have persisted everything;
#   3. ferry-bench like, GetCounts only, on the same provider and the contents run 2 wrote: one
#      id per call, served from the provider's count cache (count_cache_ms 1000).
#   4. ferry-bench like, GetCounts of 100 ids a call over 10^6 contents by Zipf (most of them
#      cold: the record's totals, then the count cache);
#   5. SetLike while MariaDB is down: confirmed by Redis, every one in the record once MariaDB
#      is back, none dead-lettered;
#   6. Redis's memory per like and per content, at 10^6 likes.
# Prints a Markdown table and the SetLike / bare-script QPS ratios (target: >= 0.50) and the
# GetCounts QPS (target: > 100,000/s on one provider). Starts Redis, MariaDB and the
# provider itself and stops them by PID.
#   FERRY_LIKE_CONNS (default 4), FERRY_LIKE_DEPTH (default 32)
#   FERRY_LIKE_SET_CALLS (default 200000): SetLike calls of run 2 and of bare-like-script-bench
#     (the first few thousand of run 2 load their buckets from MariaDB, which the bare driver
#     skips by setting the ready markers: at 200,000 calls that start is ~2% of the run)
#   FERRY_LIKE_GET_CALLS (default 300000): GetCounts calls of run 3
#   FERRY_LIKE_SCRIPT_CALLS (default 200000): redis-benchmark calls
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/redis.sh"
source "$(dirname "$0")/lib/mariadb.sh"
cd "$FERRY_ROOT"

CONNS="${FERRY_LIKE_CONNS:-4}"
DEPTH="${FERRY_LIKE_DEPTH:-32}"
SET_CALLS="${FERRY_LIKE_SET_CALLS:-200000}"
GET_CALLS="${FERRY_LIKE_GET_CALLS:-300000}"
SCRIPT_CALLS="${FERRY_LIKE_SCRIPT_CALLS:-200000}"
GET100_CALLS="${FERRY_LIKE_GET100_CALLS:-20000}"
OUTAGE_CALLS="${FERRY_LIKE_OUTAGE_CALLS:-100000}"
OUTAGE_S="${FERRY_LIKE_OUTAGE_S:-5}"
MEMORY_LIKES="${FERRY_LIKE_MEMORY_LIKES:-1000000}"
MEMORY_CONTENTS_N="${FERRY_LIKE_MEMORY_CONTENTS:-100000}"
CONCURRENCY=$((CONNS * DEPTH))
BUILD_DIR="${FERRY_BUILD_DIR:-build}"

ferry_install_packages "${FERRY_PACKAGES[@]}" python3
ferry_build "$BUILD_DIR" -- like-server ferry-bench bare-like-script-bench
BIN="$BUILD_DIR/bin"

RUN_DIR="$(mktemp -d /tmp/ferry-bench-like.XXXXXX)"
trap 'ferry_stop_all; rm -rf "$RUN_DIR"' EXIT
# field <label> <key>: a key of the RESULT line in $RUN_DIR/<label>.out; check <label>: PASS/FAIL
field() { sed -n "s/^RESULT.* $2=\(-\{0,1\}[0-9]*\).*/\1/p" "$RUN_DIR/$1.out" | tail -n 1; }
check() { sed -n 's/^check: \([A-Z]*\).*/\1/p' "$RUN_DIR/$1.out"; }

REDIS_PORT="$(ferry_free_port)"
ferry_start_redis "$REDIS_PORT" "$RUN_DIR/redis" --appendonly yes --appendfsync everysec
MARIADB_PORT="$(ferry_free_port)"
ferry_start_mariadb "$MARIADB_PORT" "$RUN_DIR/mariadb" ferry_like
redis() { redis-cli -h 127.0.0.1 -p "$REDIS_PORT" "$@"; }
# An empty Redis with an empty append-only file, so that every run meets the same rewrite
# schedule (a rewrite forks and competes for the two cores; which run it lands in would
# otherwise be luck).
fresh_redis() {
  redis FLUSHALL >/dev/null
  redis BGREWRITEAOF >/dev/null
  local deadline=$((SECONDS + 60))
  until redis INFO persistence | tr -d '\r' | grep -q '^aof_rewrite_in_progress:0$' &&
    ! redis INFO persistence | tr -d '\r' | grep -q '^aof_rewrite_scheduled:1$'; do
    [ $SECONDS -lt $deadline ] || { echo "Redis did not finish rewriting its AOF" >&2; exit 1; }
    sleep 0.1
  done
}

SECRET="$(head -c 24 /dev/urandom | base64 | tr -d '/+=')"
printf '%s\n' "$SECRET" >"$RUN_DIR/user-token.secret"
OPERATOR_SECRET="$(head -c 24 /dev/urandom | base64 | tr -d '/+=')"
printf '%s\n' "$OPERATOR_SECRET" >"$RUN_DIR/operator.secret"
TOKEN_FLAGS=(--user-token-key "scripts:$RUN_DIR/user-token.secret"
             --operator-key "operators:$RUN_DIR/operator.secret")
# The SetLike script exactly as the provider loads it: kSetLikeSource, the LIKE_LAYOUT_OF
# prelude's string literals followed by the raw string.
python3 - "$FERRY_ROOT/demo-services/like/storage/redis_like_scripts.cc" >"$RUN_DIR/set_like.lua" <<'PY'
import re, sys
src = open(sys.argv[1]).read()
macro = re.search(r'#define LIKE_LAYOUT_OF(.*?)\n\n', src, re.S).group(1)
prelude = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', macro)).encode().decode("unicode_escape")
sys.stdout.write(prelude + re.search(r'kSetLikeSource = LIKE_LAYOUT_OF R"lua\((.*?)\)lua"', src, re.S).group(1))
PY
SHA="$(sha1sum "$RUN_DIR/set_like.lua" | cut -d' ' -f1)"
[ "$(redis -x SCRIPT LOAD <"$RUN_DIR/set_like.lua")" = "$SHA" ]
CONTENT_BASE=$(($(date +%s) * 1000))
fresh_redis

# --- 1a. the bare script, ferry-bench like's workload --------------------------------------------
log "bare-like-script-bench: EVALSHA set_like, $CONCURRENCY clients, $SET_CALLS calls"
"$BIN/bare-like-script-bench" --port "$REDIS_PORT" --sha "$SHA" --clients "$CONCURRENCY" \
  --calls "$SET_CALLS" --contents 1000 --content-base "$CONTENT_BASE" --zipf 0.99 \
  --users 1000000 --buckets 4 --request-ttl-ms 120000 | tee "$RUN_DIR/driver.out"
DRIVER_QPS="$(field driver qps)"
DRIVER_P50="$(field driver p50_us)"
DRIVER_P99="$(field driver p99_us)"
DRIVER_LIKES="$(field driver likes)"
fresh_redis

# --- 1b. the bare script, redis-benchmark on one bucket ------------------------------------------
# Bucket 0 of a content of 1 bucket in partition 0; its ready marker holds the layout (1) in
# the partition's generation, as every call names it.
BARE_CONTENT=999999999
P="{lk:0}"
B="$P:$BARE_CONTENT:0:"
KEYS=("${B}m" "${B}n" "${B}v" "${B}r" "$P:g" "$P:s" "$P:t" "${B}q1" "${B}q0")
redis DEL "${KEYS[@]}" >/dev/null
redis HSET "$P:g" gen 1 id bare >/dev/null
redis SET "${B}r" 1@1 >/dev/null
log "redis-benchmark: EVALSHA set_like, $CONCURRENCY clients, $SCRIPT_CALLS calls, random users"
# Each call remembers its request id too (in the window's hash, as ferry-bench's SetLikes do).
redis-benchmark -h 127.0.0.1 -p "$REDIS_PORT" -c "$CONCURRENCY" -n "$SCRIPT_CALLS" \
  -r 2000000000 --csv EVALSHA "$SHA" 9 "${KEYS[@]}" "u:__rand_int__" 1 "$BARE_CONTENT" 0 1 \
  "r:__rand_int__" 250000 200000 "t:__rand_int__" |
  tee "$RUN_DIR/bare.csv"
# "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
BARE_LINE="$(tail -n 1 "$RUN_DIR/bare.csv" | tr -d '"')"
BARE_QPS="$(echo "$BARE_LINE" | awk -F, '{printf "%d", $2}')"
BARE_P50="$(echo "$BARE_LINE" | awk -F, '{printf "%d", $5 * 1000}')"
BARE_P99="$(echo "$BARE_LINE" | awk -F, '{printf "%d", $7 * 1000}')"
BARE_LIKES="$(redis GET "${B}n")"
log "bare script: $BARE_LIKES likes from $SCRIPT_CALLS calls, $(redis XLEN "$P:s") events"
# An empty Redis for like-server, which loads its own scripts: the check below proves the SHA
# the bare runs called is the provider's.
fresh_redis
redis SCRIPT FLUSH >/dev/null

# --- 2./3. through Ferry ---------------------------------------------------------------------
# No ratelimit filter: the bench's users call far faster than a person would.
LIKE_PORT="$(ferry_free_port)"
cat >"$RUN_DIR/like-server.yaml" <<YAML
log: {level: warn}
server:
  listen: 127.0.0.1:0
  io_threads: 1
  # SetLike is asynchronous on redis-first, GetCounts is served from the cache: a few threads
  # serve both, and more only cost context switches on two cores.
  business_pool: {threads: 4, queue_capacity: 8192}
  filters:
    - name: auth
      keys: [{id: operators, secret: $OPERATOR_SECRET}]
      exempt: [ferry.like.LikeService/SetLike, ferry.like.LikeService/GetCounts,
               ferry.like.LikeService/HasLiked, ferry.like.LikeService/ListLikers,
               ferry.like.LikeService/ListLiked]
    - name: user_token
      keys: [{id: scripts, secret: $SECRET}]
      exempt: [ferry.like.LikeService/GetCounts, ferry.like.LikeService/ListLikers,
               ferry.like.LikeService/Reconcile, ferry.like.LikeService/RedriveDeadLetters,
               ferry.like.LikeService/ListChanges, ferry.like.LikeService/DeleteUser]
service:
  backend: redis+mariadb
  write_mode: redis-first
  redis: {host: 127.0.0.1, port: $REDIS_PORT, connections: 4}  # batched: see RedisConnectionPool
  mariadb: {host: 127.0.0.1, port: $MARIADB_PORT, user: root, password: '', database: ferry_like, connections: 8}
  count_cache_ms: 1000
  event_writer: {threads: 2}
YAML
ferry_start "like-server (redis+mariadb)" "like-server listening on" 60 "$RUN_DIR/like-server.log" \
  "$BIN/like-server" --config "$RUN_DIR/like-server.yaml" --port "$LIKE_PORT"

[ "$(redis SCRIPT EXISTS "$SHA" | tr -d '[:space:]')" = "1" ] ||
  { echo "like-server did not load $SHA: the extracted script is stale" >&2; exit 1; }
# run <label> <flags...>: the ferry-bench output goes to $RUN_DIR/<label>.out
run() {
  local label="$1"
  shift
  log "ferry-bench like ($label): $*"
  "$BIN/ferry-bench" like --target "127.0.0.1:$LIKE_PORT" --conns "$CONNS" --depth "$DEPTH" \
    --content-base "$CONTENT_BASE" --duration-limit 300 --settle-timeout 600 \
    --timeout-ms 10000 "${TOKEN_FLAGS[@]}" "$@" | tee "$RUN_DIR/$label.out" || true
}

run set --calls "$SET_CALLS" --get-ratio 0 --unlike-ratio 0 --users 1000000 --zipf 0.99 \
  --contents 1000
run get --calls "$GET_CALLS" --get-ratio 1 --batch 1 --zipf 0.99 --contents 1000
# 100 ids a call over a million contents by Zipf: the 1000 the SetLike run wrote are among the
# first, the rest nobody liked (their totals come from the record once, then the cache).
run get100 --calls "$GET100_CALLS" --get-ratio 1 --batch 100 --zipf 0.99 --contents 1000000

# --- 5. SetLike while MariaDB is down ---------------------------------------------------------
# Fresh contents whose buckets a run of unlikes nobody had made loaded (a write needs the record
# to load a bucket; these changed nothing and are remembered a minute): then SetLikes confirmed
# by Redis alone. MariaDB is SIGKILLed as the run starts and started again OUTAGE_S seconds
# later; the check then waits for the writers to take everything.
CONTENT_BASE=$((CONTENT_BASE + 5000000))
run warm --calls 20000 --get-ratio 0 --unlike-ratio 1 --users 1000000 --zipf 0 --contents 1000
mysql_client() { mariadb --no-defaults --protocol=TCP -h 127.0.0.1 -P "$MARIADB_PORT" -u root ferry_like -N -e "$1"; }
DEAD_BEFORE="$(mysql_client 'SELECT COUNT(*) FROM like_dead_letter')"
kill -9 "$(cat "$RUN_DIR/mariadb/mariadbd.pid")"
(sleep "$OUTAGE_S"; ferry_start_mariadb "$MARIADB_PORT" "$RUN_DIR/mariadb" ferry_like >/dev/null) &
RESTART_PID=$!
run outage --calls "$OUTAGE_CALLS" --get-ratio 0 --unlike-ratio 0.25 --users 1000000 --zipf 0 \
  --contents 1000 --seed 2
wait "$RESTART_PID"
FERRY_PIDS+=("$(cat "$RUN_DIR/mariadb/mariadbd.pid")")  # started in a subshell
DEAD_AFTER="$(mysql_client 'SELECT COUNT(*) FROM like_dead_letter')"
OUTAGE_RECORDED="$(mysql_client "SELECT COUNT(*) FROM like_state WHERE liked = 1 AND content_id > $CONTENT_BASE AND content_id <= $((CONTENT_BASE + 1000))")"
OUTAGE_REDIS="$(mysql_client "SELECT COALESCE(SUM(count), 0) FROM like_count WHERE content_id > $CONTENT_BASE AND content_id <= $((CONTENT_BASE + 1000))")"
OUTAGE_TRUTH="$(sed -n 's/^truth: \([0-9]*\) likes.*/\1/p' "$RUN_DIR/outage.out")"
ferry_stop_all

# --- 6. Redis's memory per like and per content ---------------------------------------------
# A fresh Redis and provider: MEMORY_LIKES likes over 1000 contents, then MEMORY_CONTENTS_N more
# on as many new contents (one each); used_memory after the writers took everything and trimmed
# their streams, less before.
REDIS_PORT="$(ferry_free_port)"
ferry_start_redis "$REDIS_PORT" "$RUN_DIR/redis-memory" --appendonly yes --appendfsync everysec
MARIADB_PORT="$(ferry_free_port)"
ferry_start_mariadb "$MARIADB_PORT" "$RUN_DIR/mariadb-memory" ferry_like
sed -i "s/port: [0-9]*, connections: 4}/port: $REDIS_PORT, connections: 4}/; s/port: [0-9]*, user: root/port: $MARIADB_PORT, user: root/" "$RUN_DIR/like-server.yaml"
LIKE_PORT="$(ferry_free_port)"
ferry_start "like-server (memory)" "like-server listening on" 60 "$RUN_DIR/like-server-memory.log" \
  "$BIN/like-server" --config "$RUN_DIR/like-server.yaml" --port "$LIKE_PORT"
# Redis's memory once the writers have taken everything and trimmed their streams.
used_memory() {
  local deadline=$((SECONDS + 120)) left
  while :; do
    left="$(redis EVAL "local n = 0 for p = 0, 63 do n = n + redis.call('XLEN', '{lk:' .. p .. '}:s') end return n" 0)"
    [ "$left" = 0 ] || [ $SECONDS -ge $deadline ] && break
    sleep 0.5
  done
  redis INFO memory | tr -d '\r' | sed -n 's/^used_memory:\([0-9]*\)$/\1/p'
}
MEMORY_EMPTY="$(used_memory)"
CONTENT_BASE=$((CONTENT_BASE + 10000000))
run memory-likes --calls "$MEMORY_LIKES" --get-ratio 0 --unlike-ratio 0 --users 100000000 \
  --zipf 0 --contents 1000
MEMORY_LIKED="$(used_memory)"
CONTENT_BASE=$((CONTENT_BASE + 10000000))
run memory-contents --calls "$MEMORY_CONTENTS_N" --get-ratio 0 --unlike-ratio 0 \
  --users 100000000 --zipf 0 --contents "$MEMORY_CONTENTS_N"
MEMORY_CONTENTS="$(used_memory)"
ferry_stop_all

echo
echo "Like service, $CONCURRENCY calls in flight, loopback, $(nproc) cores, load average" \
  "$(cut -d' ' -f1-3 /proc/loadavg) at the end" \
  "(Redis $(redis-server --version | sed -n 's/.*v=\([0-9.]*\).*/\1/p'), $(mariadbd --version | awk '{print $3}'))"
echo
echo '| what | backend | calls | QPS | p50 µs | p99 µs | check |'
echo '|---|---|---|---:|---:|---:|---|'
printf '| bare-like-script-bench EVALSHA set_like (bare script) | Redis | %s, %s clients, 10^6 users, Zipf over 1000 contents | %s | %s | %s | %s likes |\n' \
  "$SET_CALLS" "$CONCURRENCY" "$DRIVER_QPS" "$DRIVER_P50" "$DRIVER_P99" "$DRIVER_LIKES"
printf '| redis-benchmark EVALSHA set_like (bare script) | Redis | %s, %s clients, one bucket | %s | %s | %s | %s likes |\n' \
  "$SCRIPT_CALLS" "$CONCURRENCY" "$BARE_QPS" "$BARE_P50" "$BARE_P99" "$BARE_LIKES"
printf '| ferry-bench like, SetLike only | redis+mariadb (redis-first) | %s, 10^6 users, Zipf over 1000 contents | %s | %s | %s | %s |\n' \
  "$SET_CALLS" "$(field set set_qps)" "$(field set p50_us)" "$(field set set_p99_us)" "$(check set)"
printf '| ferry-bench like, GetCounts only (1 id a call) | count cache of one provider | %s | %s | %s | %s | %s |\n' \
  "$GET_CALLS" "$(field get get_qps)" "$(field get p50_us)" "$(field get get_p99_us)" "$(check get)"
printf '| ferry-bench like, GetCounts of 100 ids, Zipf over 10^6 contents | Redis, the record, the cache | %s | %s | %s | %s | %s |\n' \
  "$GET100_CALLS" "$(field get100 get_qps)" "$(field get100 p50_us)" "$(field get100 get_p99_us)" "$(check get100)"
printf '| ferry-bench like, SetLike with MariaDB down %s s | redis+mariadb (redis-first) | %s | %s | %s | %s | %s |\n' \
  "$OUTAGE_S" "$OUTAGE_CALLS" "$(field outage set_qps)" "$(field outage p50_us)" "$(field outage set_p99_us)" "$(check outage)"
echo
SET_QPS="$(field set set_qps)"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
echo "SetLike through Ferry / bare script, same workload: $SET_QPS / $DRIVER_QPS =" \
  "$(ratio "$SET_QPS" "$DRIVER_QPS") (target >= 0.50)"
echo "SetLike through Ferry / redis-benchmark on one bucket: $SET_QPS / $BARE_QPS =" \
  "$(ratio "$SET_QPS" "$BARE_QPS")"
echo "GetCounts from the cache: $(field get get_qps)/s (target > 100,000/s on one provider)"
echo "SetLike run: $(grep '^LIKE check' "$RUN_DIR/set.out"); $(grep '^settled:' "$RUN_DIR/set.out")"
echo "MariaDB outage: dead letters $DEAD_BEFORE -> $DEAD_AFTER; the record's likes of the run's contents $OUTAGE_RECORDED, its count rows $OUTAGE_REDIS, the bench's truth $OUTAGE_TRUTH"
echo "Redis memory: $MEMORY_LIKES likes over 1000 contents: $(( (MEMORY_LIKED - MEMORY_EMPTY) / MEMORY_LIKES )) B a like;" \
  "$MEMORY_CONTENTS_N more, one on each of as many new contents: $(( (MEMORY_CONTENTS - MEMORY_LIKED) / MEMORY_CONTENTS_N )) B a like with its content"
[ "$DEAD_AFTER" = "$DEAD_BEFORE" ] || { echo "the outage dead-lettered changes" >&2; exit 1; }
[ "$OUTAGE_RECORDED" = "$OUTAGE_REDIS" ] || { echo "the record's rows and counts disagree" >&2; exit 1; }
[ "$OUTAGE_RECORDED" = "$OUTAGE_TRUTH" ] || { echo "the record lost or invented likes of the outage" >&2; exit 1; }
for label in set get get100 warm outage memory-likes memory-contents; do
  [ "$(check "$label")" = PASS ] || { echo "check failed in the $label run" >&2; exit 1; }
done
