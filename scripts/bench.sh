#!/usr/bin/env bash
# Runs the issue-2 comparison: ferry-bench against echo-server, the async gRPC peer and the bare
# Asio echo, in one run, each shape RUNS times, and prints a Markdown table of medians plus the
# ratios. Then the issue-3 one: the same echo calls through ZooKeeper discovery, a balancer and
# the auth + ratelimit filters, against direct --target calls. Servers and clients get one
# thread each; everything is on loopback.
#   FERRY_BENCH_SECONDS (default 5), FERRY_BENCH_RUNS (default 3), FERRY_BENCH_PAIRS (the discovery table's
#   interleaved pairs; default and least 9), FERRY_BENCH_ONLY=discovery (that table alone)
#   FERRY_BENCH_BASELINE=<git revision>: also builds that revision's echo-server and ferry-bench
#   (in a worktree under /tmp) and interleaves its direct calls with today's, so that a change
#   is measured against what it changed in one run.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/zookeeper.sh"
source "$(dirname "$0")/lib/echo_configs.sh"
cd "$FERRY_ROOT"

SECONDS_PER_RUN="${FERRY_BENCH_SECONDS:-5}"
RUNS="${FERRY_BENCH_RUNS:-3}"
ferry_install_packages "${FERRY_PACKAGES[@]}" python3
ferry_build build -- echo-server ferry-bench bare-echo-server \
  bare-echo-bench grpc-echo-server grpc-echo-bench

RUN_DIR="$(mktemp -d /tmp/ferry-bench.XXXXXX)"
trap 'ferry_stop_all; rm -rf "$RUN_DIR"' EXIT
ferry_write_echo_configs "$RUN_DIR"

FERRY_PORT=$(ferry_free_port)
ferry_start echo-server "listening on" 20 "$RUN_DIR/ferry.log" \
  build/bin/echo-server --config "$RUN_DIR/echo.yaml" --port "$FERRY_PORT"
GRPC_PORT=$(ferry_free_port)
ferry_start grpc-echo-server "listening on" 20 "$RUN_DIR/grpc.log" \
  build/bin/grpc-echo-server --bind 127.0.0.1 --port "$GRPC_PORT" --threads 1
# The discovered provider: the same echo-server, registered in ZooKeeper, with server filters.
ZK_PORT=$(ferry_free_port)
ferry_start_zookeeper "$ZK_PORT" "$RUN_DIR/zookeeper"
REGISTRY="zookeeper://127.0.0.1:$ZK_PORT"
ferry_write_discovered_client "$RUN_DIR" "$REGISTRY"
FILTERED_PORT=$(ferry_free_port)
ferry_start echo-server-filtered "listening on" 20 "$RUN_DIR/filtered.log" \
  build/bin/echo-server --config "$RUN_DIR/echo-filtered.yaml" --port "$FILTERED_PORT" \
  --registry "$REGISTRY"
BARE_PORT=$(ferry_free_port)
ferry_start bare-echo-server "listening on" 20 "$RUN_DIR/bare.log" \
  build/bin/bare-echo-server --bind 127.0.0.1 --port "$BARE_PORT" --threads 1

BASELINE="${FERRY_BENCH_BASELINE:-}"
if [ -n "$BASELINE" ]; then
  BASELINE_DIR="$RUN_DIR/baseline-tree"
  git worktree add --detach "$BASELINE_DIR" "$BASELINE" >/dev/null
  trap 'ferry_stop_all; git worktree remove --force "$BASELINE_DIR"; rm -rf "$RUN_DIR"' EXIT
  log "building $BASELINE's echo-server and ferry-bench"
  (export CCACHE_BASEDIR="$BASELINE_DIR"
   cmake -S "$BASELINE_DIR" -B "$BASELINE_DIR/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
     -DFERRY_BUILD_TESTS=OFF >/dev/null
   cmake --build "$BASELINE_DIR/build" -j "$FERRY_JOBS" --target echo-server ferry-bench \
     >/dev/null)
  # Its own config: an older echo-server may not know every key of today's.
  sed '/drain_delay_ms/d' "$RUN_DIR/echo.yaml" >"$RUN_DIR/echo-baseline.yaml"
  BASELINE_PORT=$(ferry_free_port)
  ferry_start echo-server-baseline "listening on" 20 "$RUN_DIR/baseline.log" \
    "$BASELINE_DIR/build/bin/echo-server" --config "$RUN_DIR/echo-baseline.yaml" \
    --port "$BASELINE_PORT"
fi

# run <system> <conns> <depth> <size>: prints the RESULT line of one run.
run() {
  local system="$1" conns="$2" depth="$3" size="$4" bin port
  case "$system" in
    ferry) bin="build/bin/ferry-bench echo"; port=$FERRY_PORT ;;
    discovered)
      build/bin/ferry-bench echo --config "$RUN_DIR/client-discovered.yaml" --conns "$conns" \
        --depth "$depth" --size "$size" --duration "$SECONDS_PER_RUN" --threads 1 2>/dev/null |
        tail -n 1
      return ;;
    baseline) bin="$BASELINE_DIR/build/bin/ferry-bench echo"; port=$BASELINE_PORT ;;
    grpc) bin="build/bin/grpc-echo-bench"; port=$GRPC_PORT ;;
    bare) bin="build/bin/bare-echo-bench"; port=$BARE_PORT ;;
  esac
  $bin --target "127.0.0.1:$port" --conns "$conns" --depth "$depth" --size "$size" \
    --duration "$SECONDS_PER_RUN" --threads 1 2>/dev/null | tail -n 1
}

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p"; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
get() { awk -v s="$1" -v c="$2" -v d="$3" -v z="$4" -v col="$5" \
  '$1==s && $2==c && $3==d && $4==z {print $col}' "$RUN_DIR/medians"; }

if [ "${FERRY_BENCH_ONLY:-}" != discovery ]; then
  printf '| shape | system | QPS (median of %s) | p50 µs | p99 µs | p999 µs | errors |\n' "$RUNS"
  printf '|---|---|---:|---:|---:|---:|---:|\n'
  for shape in "4 32 16" "1 1 16" "4 32 4096" "1 32 16"; do
    read -r conns depth size <<<"$shape"
    for system in ferry grpc bare; do
      : >"$RUN_DIR/runs"
      # Interleaving systems within a shape would be fairer still, but each run is long enough
      # that the medians settle.
      for _ in $(seq "$RUNS"); do run "$system" "$conns" "$depth" "$size" >>"$RUN_DIR/runs"; done
      qps=$(field qps <"$RUN_DIR/runs" | median)
      p50=$(field p50_us <"$RUN_DIR/runs" | median)
      p99=$(field p99_us <"$RUN_DIR/runs" | median)
      p999=$(field p999_us <"$RUN_DIR/runs" | median)
      errors=$(field errors <"$RUN_DIR/runs" | median)
      printf '| %s conns x %s deep, %s B | %s | %s | %s | %s | %s | %s |\n' \
        "$conns" "$depth" "$size" "$system" "$qps" "$p50" "$p99" "$p999" "$errors"
      echo "$system $conns $depth $size $qps $p50 $p99" >>"$RUN_DIR/medians"
    done
  done

  echo
  echo "Ratios (4x32, 16 B): ferry/grpc QPS = $(ratio "$(get ferry 4 32 16 5)" "$(get grpc 4 32 16 5)"), " \
    "grpc/ferry p99 = $(ratio "$(get grpc 4 32 16 7)" "$(get ferry 4 32 16 7)"), " \
    "ferry/bare QPS = $(ratio "$(get ferry 4 32 16 5)" "$(get bare 4 32 16 5)")"
  echo "Depth 1 (1x1, 16 B): ferry p50 / bare p50 = $(ratio "$(get ferry 1 1 16 6)" "$(get bare 1 1 16 6)")"
fi

# Discovery + balancer + filters against direct calls, interleaved run by run so that
# both see the same machine. Single runs on this VM move by 20% and five pairs by ±0.05 in their
# ratio, so at least 9 pairs; 21 bring that to about ±0.03.
DISCOVERY_RUNS="${FERRY_BENCH_PAIRS:-9}"
DISCOVERY_RUNS=$((DISCOVERY_RUNS > 9 ? DISCOVERY_RUNS : 9))
DISCOVERY_RUNS=$((RUNS > DISCOVERY_RUNS ? RUNS : DISCOVERY_RUNS))
echo
printf '| 4 conns x 32 deep, 16 B | QPS (median of %s) | p50 µs | p99 µs |\n' "$DISCOVERY_RUNS"
printf '|---|---:|---:|---:|\n'
: >"$RUN_DIR/direct"
: >"$RUN_DIR/discovered"
: >"$RUN_DIR/baseline"
KINDS="direct discovered"
[ -n "$BASELINE" ] && KINDS="$KINDS baseline"
for _ in $(seq "$DISCOVERY_RUNS"); do
  run ferry 4 32 16 >>"$RUN_DIR/direct"
  run discovered 4 32 16 >>"$RUN_DIR/discovered"
  [ -n "$BASELINE" ] && run baseline 4 32 16 >>"$RUN_DIR/baseline"
done
for kind in $KINDS; do
  printf '| %s | %s | %s | %s |\n' "$kind" "$(field qps <"$RUN_DIR/$kind" | median)" \
    "$(field p50_us <"$RUN_DIR/$kind" | median)" "$(field p99_us <"$RUN_DIR/$kind" | median)"
done
# Both the ratio of the medians and the median of each pair's ratio: when they disagree, the
# machine moved during the run.
pair_ratio_median=$(paste <(field qps <"$RUN_DIR/discovered") <(field qps <"$RUN_DIR/direct") |
  awk '$2 > 0 {printf "%.4f\n", $1 / $2}' | median)
echo "discovered/direct QPS = $(ratio "$(field qps <"$RUN_DIR/discovered" | median)" \
  "$(field qps <"$RUN_DIR/direct" | median)") (ratio of medians), $(printf '%.2f' \
  "$pair_ratio_median") (median of the $DISCOVERY_RUNS pairs' ratios); target >= 0.85"
if [ -n "$BASELINE" ]; then
  baseline_pairs=$(paste <(field qps <"$RUN_DIR/direct") <(field qps <"$RUN_DIR/baseline") |
    awk '$2 > 0 {printf "%.4f\n", $1 / $2}' | median)
  echo "direct/baseline ($BASELINE) direct QPS = $(ratio "$(field qps <"$RUN_DIR/direct" | median)" \
    "$(field qps <"$RUN_DIR/baseline" | median)") (ratio of medians), $(printf '%.2f' \
    "$baseline_pairs") (median of the pairs' ratios); target >= 1.00"
fi
