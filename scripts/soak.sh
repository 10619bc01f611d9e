#!/usr/bin/env bash
# Soak: seckill and echo under load through ZooKeeper discovery while providers, ZooKeeper,
# Redis and the order consumer are killed (SIGKILL or SIGTERM) and restarted at random, then
# checks no oversell, no lost accepted order, no crash and flat memory, and prints a one-line
# verdict last (exit 0 PASS, 1 FAIL). A hostile client sends the providers' ports, all along,
# the inputs the server's limits defend against; memory must stay flat under it too.
# Everything on loopback, in a temporary directory.
#   scripts/soak.sh [--duration SECONDS] [--seed N] [--keep]
#     --duration  load and chaos time (default FERRY_SOAK_SECONDS, else 600); start-up,
#                 draining and the checks add about 30 s to 60 s, 2 minutes to a 10-minute run
#     --seed      the chaos RNG's seed (default: random, printed); the same seed replays the
#                 same sequence of kills, signals and pauses
#     --keep      keep the run directory (logs, events.log, samples) even on PASS; on FAIL it is
#                 always kept and named
#   FERRY_BUILD_DIR=DIR    build tree to use (default build)
# docs/testing.md describes the processes, the checks and their bounds.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/zookeeper.sh"
source "$(dirname "$0")/lib/redis.sh"
source "$(dirname "$0")/lib/mariadb.sh"
source "$(dirname "$0")/lib/seckill_user_token.sh"
cd "$FERRY_ROOT"

DURATION="${FERRY_SOAK_SECONDS:-600}"
SEED=""
KEEP=0
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) DURATION="${2:-}"; shift 2 || { echo "--duration: needs a value" >&2; exit 2; } ;;
    --duration=*) DURATION="${1#--duration=}"; shift ;;
    --seed) SEED="${2:-}"; shift 2 || { echo "--seed: needs a value" >&2; exit 2; } ;;
    --seed=*) SEED="${1#--seed=}"; shift ;;
    --keep) KEEP=1; shift ;;
    -h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "soak.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
[[ "$DURATION" =~ ^[0-9]+$ ]] && [ "$DURATION" -ge 30 ] && [ "$DURATION" -le 86400 ] ||
  { echo "soak.sh: --duration must be a whole number of seconds from 30 to 86400, got '$DURATION'" >&2; exit 2; }
[ -z "$SEED" ] && SEED=$(( $(od -An -N4 -tu4 /dev/urandom) % 1000000000 ))
[[ "$SEED" =~ ^[0-9]+$ ]] && [ "$SEED" -le 4294967295 ] ||
  { echo "soak.sh: --seed must be a whole number from 0 to 4294967295, got '$SEED'" >&2; exit 2; }

ferry_install_packages "${FERRY_PACKAGES[@]}" python3
BUILD_DIR="${FERRY_BUILD_DIR:-build}"
ferry_build "$BUILD_DIR" -- echo-server seckill-server ferry-bench ferry-auth-token
BIN="$FERRY_ROOT/$BUILD_DIR/bin"
[ -d "$BIN" ] || BIN="$BUILD_DIR/bin"
CHECKS="$FERRY_ROOT/scripts/lib/soak_checks.py"
HOSTILE="$FERRY_ROOT/scripts/lib/soak_hostile.py"

RUN="$(mktemp -d /tmp/ferry-soak.XXXXXX)"
ferry_seckill_user_token "$RUN"
EVENTS="$RUN/events.log"
FAILURES="$RUN/failures"  # one line per failed check, the first is the verdict's reason
: >"$FAILURES"
: >"$EVENTS"
# On any exit: the load loops and their running round (its `timeout`, which passes the signal
# on), then every server.
cleanup() {
  set +e
  touch "$RUN/stop"
  for f in "$RUN"/*-loop.pid; do [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null; done
  for pid in "${LOAD_PIDS[@]:-}" "${SAMPLER_PID:-}" "${HOSTILE_PID:-}"; do [ -n "$pid" ] && kill "$pid" 2>/dev/null; done
  ferry_stop_all
  wait 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM

event() {
  printf '%s +%ss %s\n' "$(date '+%F %T.%3N')" "$((SECONDS - T0))" "$*" | tee -a "$EVENTS"
}
fail() {
  event "FAIL: $*"
  echo "$*" >>"$FAILURES"
}

# --- the processes -------------------------------------------------------------------------
# Each has a name, a pid and a start command (start_<kind> <name>). The chaos loop kills and
# restarts only the names in CHAOS_TARGETS; seckill-1 and echo-1 run throughout, so some
# provider of each service is always up and their memory is always measured.
declare -A PID PORT KIND INCARNATION
CHAOS_TARGETS=(seckill-2 seckill-3 echo-2 zookeeper redis consumer)

# A process of ours is alive when it has not exited (a zombie is not reaped until `wait`, so
# its pid cannot have been reused by anyone else).
alive() {
  local state
  state=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null) &&
    [ -n "$state" ] && [ "$state" != Z ]
}

forget_pid() {
  local gone="$1" kept=()
  for p in "${FERRY_PIDS[@]:-}"; do [ -n "$p" ] && [ "$p" != "$gone" ] && kept+=("$p"); done
  FERRY_PIDS=("${kept[@]}")
}

write_procs() {  # for the RSS sampler: "name pid comm" of every process of ours that is up
  local tmp="$RUN/procs.tmp" name
  : >"$tmp"
  for name in "${!PID[@]}"; do
    [ -n "${PID[$name]}" ] || continue
    case "${KIND[$name]}" in
      seckill | consumer) echo "$name ${PID[$name]} seckill-server" >>"$tmp" ;;
      echo) echo "$name ${PID[$name]} echo-server" >>"$tmp" ;;
    esac
  done
  mv "$tmp" "$RUN/procs"
}

# Worker ids are leased from ZooKeeper (the registry's for providers, idgen.zookeeper for the
# unregistered consumer), so a restarted process may get another one but never a taken one.
seckill_yaml() {  # seckill_yaml <order writer threads>
  cat <<YAML
log: {level: warn}
server:
  listen: 127.0.0.1:0
  io_threads: 1
  drain_delay_ms: 300
  business_pool: {threads: 4, queue_capacity: 4096}
$SECKILL_FILTERS_YAML
service:
  backend: redis+mariadb
  redis: {host: 127.0.0.1, port: $REDIS_PORT, connections: 4, timeout_ms: 1000}
  mariadb: {host: 127.0.0.1, port: $MARIADB_PORT, user: root, password: '', database: seckill, connections: 4, timeout_ms: 5000}
  idgen: {zookeeper: '$REGISTRY'}
  order_writer: {threads: $1, interval_ms: 20, claim_idle_ms: 2000}
  reconciler: {interval_ms: 5000, redrive_after_ms: 10000}
  answer_cache_entries: 4096
YAML
}

start_process() {  # start_process <name>: (re)starts it on its port; 1 when it did not come up
  local name="$1" n
  n=$((${INCARNATION[$name]:-0} + 1))
  INCARNATION[$name]=$n
  local log="$RUN/$name.$n.log"
  case "${KIND[$name]}" in
    zookeeper)
      [ -f "$RUN/zookeeper/zookeeper.log" ] && mv "$RUN/zookeeper/zookeeper.log" "$RUN/zookeeper/zookeeper.$((n - 1)).log"
      ferry_start_zookeeper "${PORT[$name]}" "$RUN/zookeeper" >/dev/null || return 1
      ;;
    redis)
      # No accepted reservation may be lost here, SIGKILL included: the append-only file fsync'ed
      # before each reply. With `everysec`, Redis 7.0 holds back its AOF writes (and still
      # replies) while a background fsync is slow, up to 2 s, and a SIGKILL then loses them
      # (README, "Known limits").
      ferry_start_redis "${PORT[$name]}" "$RUN/redis" --appendonly yes --appendfsync always >/dev/null || return 1
      ;;
    seckill)
      ferry_start "$name" "seckill-server listening on" 90 "$log" "$BIN/seckill-server" \
        --config "$RUN/$name.yaml" --port "${PORT[$name]}" --registry "$REGISTRY" >/dev/null || return 1
      ;;
    consumer)  # not registered: it takes no purchases, it only writes orders
      ferry_start "$name" "seckill-server listening on" 90 "$log" "$BIN/seckill-server" \
        --config "$RUN/$name.yaml" --port "${PORT[$name]}" >/dev/null || return 1
      ;;
    mariadb) return 1 ;;  # started once, below; never a chaos target
    echo)
      ferry_start "$name" "echo-server listening on" 90 "$log" "$BIN/echo-server" \
        --config demo-services/echo/config/echo-server.yaml --port "${PORT[$name]}" \
        --registry "$REGISTRY" >/dev/null || return 1
      ;;
  esac
  PID[$name]="${FERRY_PIDS[-1]}"
  write_procs
}

# Signals a process, waits for it and checks how it ended: after SIGTERM, Ferry's own
# processes must exit 0 within 30 s.
stop_process() {  # stop_process <name> <KILL|TERM>
  local name="$1" sig="$2" pid="${PID[$1]}" rc=0
  PID[$name]=""
  write_procs
  kill -s "$sig" "$pid" 2>/dev/null || true
  local deadline=$((SECONDS + 30))
  while alive "$pid" && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
  if alive "$pid"; then
    fail "$name (pid $pid) still running 30 s after SIG$sig"
    kill -s KILL "$pid" 2>/dev/null || true
  fi
  { wait "$pid" || rc=$?; } 2>/dev/null  # without bash's "Killed" notice
  forget_pid "$pid"
  case "${KIND[$name]}" in
    seckill | consumer | echo)
      if [ "$sig" = TERM ] && [ "$rc" -ne 0 ]; then
        fail "$name (pid $pid) exited $rc after SIGTERM (log: $RUN/$name.${INCARNATION[$name]}.log)"
      fi
      ;;
  esac
  event "$name (pid $pid) SIG$sig: exited $rc"
}

# Anything of ours that died without being told to is a crash; it is restarted so that the run
# goes on, and the verdict is FAIL.
check_unexpected_exits() {
  local name pid rc
  for name in "${!PID[@]}"; do
    pid="${PID[$name]}"
    [ -n "$pid" ] && ! alive "$pid" || continue
    rc=0
    { wait "$pid" || rc=$?; } 2>/dev/null
    forget_pid "$pid"
    PID[$name]=""
    fail "$name (pid $pid) exited $rc on its own (crash; log: $RUN/$name.${INCARNATION[$name]}.log)"
    start_process "$name" || fail "$name did not start again"
  done
}

T0=$SECONDS
log "soak: duration ${DURATION}s, seed $SEED, run directory $RUN"

mkdir -p "$RUN/zookeeper" "$RUN/redis" "$RUN/mariadb"
KIND[zookeeper]=zookeeper; PORT[zookeeper]="$(ferry_free_port)"
KIND[redis]=redis; PORT[redis]="$(ferry_free_port)"
REDIS_PORT="${PORT[redis]}"
REGISTRY="zookeeper://127.0.0.1:${PORT[zookeeper]}"
start_process zookeeper
start_process redis
MARIADB_PORT="$(ferry_free_port)"
ferry_start_mariadb "$MARIADB_PORT" "$RUN/mariadb" seckill >/dev/null
PID[mariadb]="${FERRY_PIDS[-1]}"; KIND[mariadb]=mariadb
MARIADB=(mariadb --no-defaults --protocol=TCP -h 127.0.0.1 -P "$MARIADB_PORT" -u root -N -B seckill)

for i in 1 2 3; do
  KIND[seckill-$i]=seckill; PORT[seckill-$i]="$(ferry_free_port)"
  seckill_yaml 0 >"$RUN/seckill-$i.yaml"
  start_process "seckill-$i"
done
KIND[consumer]=consumer; PORT[consumer]="$(ferry_free_port)"
seckill_yaml 2 >"$RUN/consumer.yaml"
start_process consumer
for i in 1 2; do
  KIND[echo-$i]=echo; PORT[echo-$i]="$(ferry_free_port)"
  start_process "echo-$i"
done
event "started: ZooKeeper :${PORT[zookeeper]}, Redis :$REDIS_PORT (appendfsync always), MariaDB :$MARIADB_PORT, seckill :${PORT[seckill-1]} :${PORT[seckill-2]} :${PORT[seckill-3]}, consumer :${PORT[consumer]}, echo :${PORT[echo-1]} :${PORT[echo-2]}"

# --- load ----------------------------------------------------------------------------------
# Rounds, each bounded in time by the command itself and by `timeout`; the loops end at the
# deadline or when $RUN/stop appears. A round that runs past `timeout` is a hang.
END_AT=$(( $(date +%s) + DURATION ))
echo_loop() {
  local round=0
  while [ ! -e "$RUN/stop" ] && [ "$(date +%s)" -lt $((END_AT - 5)) ] && [ $round -lt 100000 ]; do
    round=$((round + 1))
    local rc=0
    # Half the calls are Delay(2 ms) on the business pool: that bounds the rate (closed loop,
    # 4 calls out) well below what would take a whole core from the rest.
    timeout -k 10 60 "$BIN/ferry-bench" echo --registry "$REGISTRY" --conns 2 --depth 2 \
      --size 64 --duration 10 --slow-ratio 0.5 --slow-ms 2 --timeout-ms 2000 \
      >"$RUN/echo-round-$round.out" 2>&1 &
    echo $! >"$RUN/echo-loop.pid"
    wait $! || rc=$?
    rm -f "$RUN/echo-loop.pid"
    echo "$round $rc" >>"$RUN/echo-rounds"
    [ $rc -eq 0 ] || sleep 1
  done
}
seckill_loop() {
  local round=0
  while [ ! -e "$RUN/stop" ] && [ "$(date +%s)" -lt $((END_AT - 10)) ] && [ $round -lt 100000 ]; do
    round=$((round + 1))
    local rc=0 began
    began=$(date +%s)
    echo "$round" >"$RUN/round.tmp" && mv "$RUN/round.tmp" "$RUN/round"
    # Half the buyers get a unit, so that most purchases reach Redis and the consumer has
    # thousands of orders to write: kills land in bursts and in the writing.
    timeout -k 10 240 "$BIN/ferry-bench" seckill --registry "$REGISTRY" --conns 2 --depth 4 \
      --stock 3000 --buyers 6000 --dup-ratio 0.1 --duration-limit 30 --settle-timeout 90 \
      --timeout-ms 3000 --accepted-out "$RUN/seckill-round-$round.accepted" \
      "${SECKILL_TOKEN_FLAGS[@]}" \
      >"$RUN/seckill-round-$round.out" 2>&1 &
    echo $! >"$RUN/seckill-loop.pid"
    wait $! || rc=$?
    rm -f "$RUN/seckill-loop.pid"
    echo "$round $rc" >>"$RUN/seckill-rounds"
    # One activity every 8 s at most: the order writer polls every open activity's queue.
    while [ $(($(date +%s) - began)) -lt 8 ] && [ ! -e "$RUN/stop" ]; do sleep 0.5; done
  done
}
rss_sampler() {  # every 2 s: "epoch name pid VmRSS-KiB" for each provider that is up
  while [ ! -e "$RUN/stop" ]; do
    local now
    now=$(date +%s.%N)
    while read -r name pid comm; do
      [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$comm" ] || continue
      local kib
      kib=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$pid/status" 2>/dev/null)
      [ -n "$kib" ] && echo "$now $name $pid $kib" >>"$RUN/rss.samples"
    done <"$RUN/procs"
    sleep 2
  done
}
LOAD_PIDS=()
RUN_START=$(date +%s)
rss_sampler &
SAMPLER_PID=$!
echo_loop &
LOAD_PIDS+=("$!")
seckill_loop &
LOAD_PIDS+=("$!")
# The hostile client (scripts/lib/soak_hostile.py), for as long as the load runs: it is
# stopped when the load rounds have ended, its deadline is a backstop past their timeouts. It
# aims at every provider, the restarted ones too, but only echo-1's and seckill-1's memory is
# measured all along.
HOSTILE_TARGETS=()
for name in echo-1 echo-2 seckill-1 seckill-2 seckill-3; do
  HOSTILE_TARGETS+=("$name=${PORT[$name]}:${KIND[$name]}")
done
python3 "$HOSTILE" --deadline $((END_AT + 300)) --summary "$RUN/hostile.txt" \
  "${HOSTILE_TARGETS[@]}" >"$RUN/hostile.log" 2>&1 &
HOSTILE_PID=$!

# --- chaos ---------------------------------------------------------------------------------
# One target down at a time, for 1-4 s. An event waits for the next seckill round to start
# (at most 12 s) and strikes 0-1.9 s into it, so that it lands in the burst, the order writing
# or the check rather than between rounds; then a pause of 0-3 s. The RNG is bash's, seeded
# with SEED, and consulted a fixed number of times per event, so a seed replays the same
# events.
RANDOM=$SEED
KILLS=0
# Sleeps until the seckill round after the current one has started, or `timeout` seconds.
await_next_round() {
  local seen deadline=$((SECONDS + $1))
  seen=$(cat "$RUN/round" 2>/dev/null || echo 0)
  while [ "$(cat "$RUN/round" 2>/dev/null || echo 0)" = "$seen" ] && [ $SECONDS -lt $deadline ]; do
    sleep 0.1
  done
}
while [ "$(date +%s)" -lt "$END_AT" ]; do
  target="${CHAOS_TARGETS[$((RANDOM % ${#CHAOS_TARGETS[@]}))]}"
  signal=TERM
  [ $((RANDOM % 2)) -eq 1 ] || signal=KILL
  down_s=$((1 + RANDOM % 4))
  pause_s=$((RANDOM % 4))
  offset_ds=$((RANDOM % 20))
  await_next_round 12
  sleep "$((offset_ds / 10)).$((offset_ds % 10))"
  [ "$(date +%s)" -lt "$END_AT" ] || break
  check_unexpected_exits
  if [ -n "${PID[$target]}" ]; then
    event "$target: SIG$signal in seckill round $(cat "$RUN/round" 2>/dev/null || echo 0)"
    stop_process "$target" "$signal"
    KILLS=$((KILLS + 1))
    sleep "$down_s"
    if start_process "$target"; then
      event "$target restarted (pid ${PID[$target]}) after ${down_s}s down"
    else
      fail "$target did not start again (log: $RUN/$target.${INCARNATION[$target]}.log)"
    fi
  fi
  for _ in $(seq "$pause_s"); do
    [ "$(date +%s)" -lt "$END_AT" ] || break
    sleep 1
    check_unexpected_exits
  done
done
event "chaos over: $KILLS kills; waiting for the load rounds to finish"
touch "$RUN/stop"
for pid in "${LOAD_PIDS[@]}"; do wait "$pid" || true; done
LOAD_PIDS=()
wait "$SAMPLER_PID" 2>/dev/null || true
SAMPLER_PID=""
RUN_END=$(date +%s)
# Only now: its run must cover the whole of the RSS check's window.
kill -TERM "$HOSTILE_PID" 2>/dev/null || true
HOSTILE_RC=0
wait "$HOSTILE_PID" || HOSTILE_RC=$?
HOSTILE_PID=""
check_unexpected_exits

# --- checks --------------------------------------------------------------------------------
# Drain: every activity reconciled clean (nothing unwritten, nothing queued, cache = database).
# Each may take 120 s to get there (a Reconcile call takes a second or two under load, so the
# bound is per activity); after one has not, the others get one look each.
ACTIVITIES=$("${MARIADB[@]}" -e 'SELECT activity_id FROM seckill_activity ORDER BY activity_id')
RECONCILE_URL="http://127.0.0.1:${PORT[seckill-1]}/ferry.seckill.SeckillService/Reconcile"
drain_s=120
for activity in $ACTIVITIES; do
  deadline=$((SECONDS + drain_s))
  while true; do
    body="{\"activityId\":\"$activity\"}"
    # An operator's call: signed with the scripts' operator key, one token per call, for a
    # caller authz lets call Reconcile.
    token=$("$BIN"/ferry-auth-token --key-id scripts-operator --caller soak \
      --secret-file "$RUN/operator.secret" --service ferry.seckill.SeckillService \
      --method Reconcile --body "$body")
    answer=$(curl -s --max-time 30 -XPOST "$RECONCILE_URL" -H "Authorization: Bearer $token" \
      -H 'Content-Type: application/json' -d "$body" || true)
    python3 "$CHECKS" reconcile "$activity" "$answer" >"$RUN/reconcile-$activity.txt" && break
    if [ $SECONDS -ge $deadline ]; then
      fail "$(head -n1 "$RUN/reconcile-$activity.txt") (after draining ${drain_s} s)"
      drain_s=0
      break
    fi
    sleep 1
  done
done
event "drained and reconciled $(echo "$ACTIVITIES" | wc -w) activities"

# Queues: no order event was given up (nothing here is poison), and acknowledged entries were
# trimmed (untrimmed, a stream holds every reservation of its activity).
STREAM_BOUND=1000
: >"$RUN/queues.txt"
while read -r activity sku; do
  [ -n "$activity" ] || continue
  tag="seckill:{$activity:$sku}"
  letters=$(redis-cli -p "$REDIS_PORT" XLEN "$tag:dead_letters" 2>&1)
  length=$(redis-cli -p "$REDIS_PORT" XLEN "$tag:orders" 2>&1)
  [ "$letters" = "0" ] || fail "activity $activity: dead letters: $letters"
  [[ "$length" =~ ^[0-9]+$ ]] && [ "$length" -le "$STREAM_BOUND" ] ||
    fail "activity $activity: order stream length $length (bound $STREAM_BOUND)"
  echo "activity $activity: order stream length $length, dead letters $letters" >>"$RUN/queues.txt"
done < <("${MARIADB[@]}" -e 'SELECT activity_id, sku_id FROM seckill_activity')
event "queues: longest order stream $(awk '{print $6+0}' "$RUN/queues.txt" | sort -n | tail -n1) entries, $(awk '{n += $9} END {print n+0}' "$RUN/queues.txt") dead letters"

"${MARIADB[@]}" -e 'SELECT a.activity_id, a.initial_stock, s.remaining FROM seckill_activity a
  JOIN seckill_stock s ON s.activity_id = a.activity_id' >"$RUN/activities.tsv"
"${MARIADB[@]}" -e 'SELECT activity_id, request_id, user_id, state FROM seckill_order' >"$RUN/orders.tsv"
shopt -s nullglob
ACCEPTED_FILES=("$RUN"/seckill-round-*.accepted)
shopt -u nullglob
python3 "$CHECKS" orders "$RUN/activities.tsv" "$RUN/orders.tsv" "${ACCEPTED_FILES[@]}" \
  >"$RUN/orders-check.txt" || fail "$(head -n1 "$RUN/orders-check.txt")"
cat "$RUN/orders-check.txt"
ORDERS_SUMMARY=$(tail -n1 "$RUN/orders-check.txt")
summary_value() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" <<<"$2"; }
ORDERS=$(summary_value orders "$ORDERS_SUMMARY")
OVERSELL=$(summary_value oversell "$ORDERS_SUMMARY")
LOST=$(summary_value lost "$ORDERS_SUMMARY")

# The load got through: some seckill round sold its stock, and every echo round that ran had
# calls answered (echo-1 is always up) and no wrong payload.
SOLD_OUT_ROUNDS=$( (grep -l "^check: PASS" "$RUN"/seckill-round-*.out 2>/dev/null || true) | wc -l)
SECKILL_ROUNDS=$(wc -l <"$RUN/seckill-rounds" 2>/dev/null || echo 0)
ECHO_OK_ROUNDS=$( (awk '$2 == 0' "$RUN/echo-rounds" 2>/dev/null || true) | wc -l)
ECHO_ROUNDS=$(wc -l <"$RUN/echo-rounds" 2>/dev/null || echo 0)
[ "$SOLD_OUT_ROUNDS" -gt 0 ] || fail "no seckill round passed its own check ($SECKILL_ROUNDS rounds)"
[ "$ECHO_OK_ROUNDS" -gt 0 ] || fail "no echo round succeeded ($ECHO_ROUNDS rounds)"
for f in "$RUN"/echo-round-*.out; do
  if grep -q '^RESULT' "$f" && grep -q '^calls: 0 ok' "$f"; then
    fail "echo round $(basename "$f" .out): no call answered"
  fi
done
if grep -q "BAD_ECHO" "$RUN"/echo-round-*.out 2>/dev/null; then
  fail "echo answered a wrong payload (BAD_ECHO)"
fi
if awk '$2 == 124 || $2 == 137 { found = 1 } END { exit !found }' "$RUN/echo-rounds" \
  "$RUN/seckill-rounds" 2>/dev/null; then
  fail "a ferry-bench round hung past its timeout"
fi
ECHO_CALLS=$( (cat "$RUN"/echo-round-*.out 2>/dev/null || true) |
  sed -n 's/^calls: \([0-9]*\) ok, \([0-9]*\) errors.*/\1 \2/p' |
  awk '{ ok += $1; errors += $2 } END { print ok + 0 " calls ok, " errors + 0 " failed" }')
event "load: $SECKILL_ROUNDS seckill rounds ($SOLD_OUT_ROUNDS passed ferry-bench's own check), $ECHO_ROUNDS echo rounds ($ECHO_OK_ROUNDS ran: $ECHO_CALLS)"

# The hostile client reached echo-1 and seckill-1 (whose memory is measured) with every input,
# and no provider took what it must refuse or kept open what it must close (exit 1, which an
# input failing on its own gives too: the UNEXPECTED line says which).
HOSTILE_SUMMARY=$(tail -n1 "$RUN/hostile.txt" 2>/dev/null || true)
cat "$RUN/hostile.txt" 2>/dev/null || true
HOSTILE_INPUTS=$(summary_value inputs "$HOSTILE_SUMMARY")
HOSTILE_CONNS=$(summary_value connections "$HOSTILE_SUMMARY")
if [ "$HOSTILE_RC" -eq 1 ]; then
  fail "hostile client: $(grep -m1 UNEXPECTED "$RUN/hostile.txt" | sed 's/^ *//')"
elif [ "$HOSTILE_RC" -ne 0 ] || [ -z "$HOSTILE_INPUTS" ]; then
  fail "hostile client exited $HOSTILE_RC (log: $RUN/hostile.log)"
else
  for name in echo-1 seckill-1; do
    reached=$(sed -n "s/.*[ ,=]$name:\([0-9]*\).*/\1/p" <<<"$HOSTILE_SUMMARY")
    [ "${reached:-0}" = "$HOSTILE_INPUTS" ] ||
      fail "hostile client: ${reached:-0} of its $HOSTILE_INPUTS inputs reached $name"
  done
fi
# What the providers' limits did about it, from their own counters (the figures of the run).
for name in echo-1 seckill-1; do
  curl -s --max-time 10 "http://127.0.0.1:${PORT[$name]}/metrics" >"$RUN/$name.metrics" || true
  event "$name limit events: $(sed -n 's/^ferry_server_limit_events_total{event="\([a-z_]*\)"} \([0-9]*\)$/\1=\2/p' \
    "$RUN/$name.metrics" | tr '\n' ' ')"
done

python3 "$CHECKS" rss "$RUN/rss.samples" "$RUN_START" "$RUN_END" \
  $(summary_value hostile_start "$HOSTILE_SUMMARY") $(summary_value hostile_end "$HOSTILE_SUMMARY") \
  >"$RUN/rss-check.txt" ||
  fail "memory: $(grep -m1 -E 'GREW|PEAKED|too few|hostile client ran' "$RUN/rss-check.txt" || tail -n1 "$RUN/rss-check.txt")"
cat "$RUN/rss-check.txt"
RSS_MAX=$(summary_value rss_growth_max "$(tail -n1 "$RUN/rss-check.txt")")

# Ferry's processes stop cleanly (exit 0 after SIGTERM), and no log reports a crash.
for name in seckill-1 seckill-2 seckill-3 consumer echo-1 echo-2; do
  if [ -n "${PID[$name]}" ]; then stop_process "$name" TERM; fi
done
CRASH_LINES=$(grep -l -E "AddressSanitizer|ThreadSanitizer|runtime error:|terminate called|Aborted|Segmentation fault|core dumped|std::bad_alloc|Assertion .* failed" \
  "$RUN"/*.log 2>/dev/null || true)
[ -z "$CRASH_LINES" ] || fail "crash reported in $(echo $CRASH_LINES)"
CRASHES=$(grep -c -E "exited [0-9]+ on its own|after SIGTERM" "$FAILURES" || true)
[ -z "$CRASH_LINES" ] || CRASHES=$((CRASHES + $(echo "$CRASH_LINES" | wc -l)))

VERDICT_TAIL="duration=${DURATION}s seed=$SEED kills=$KILLS orders=${ORDERS:-?} oversell=${OVERSELL:-?} lost=${LOST:-?} crashes=$CRASHES rss_growth_max=${RSS_MAX:-?} hostile_conns=${HOSTILE_CONNS:-?}"
if [ -s "$FAILURES" ]; then
  KEEP=1
  log "events: $EVENTS; everything else in $RUN (kept)"
  echo "soak: FAIL $(head -n1 "$FAILURES") $VERDICT_TAIL"
  exit 1
fi
if [ $KEEP -eq 1 ]; then log "events: $EVENTS; everything else in $RUN (kept)"; fi
trap 'cleanup; [ $KEEP -eq 1 ] || rm -rf "$RUN"' EXIT
echo "soak: PASS $VERDICT_TAIL"
