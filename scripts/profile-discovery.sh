#!/usr/bin/env bash
# What discovery, the balancer and the filters cost per call, in instructions rather than QPS:
# QPS on a shared 2-core VM moves 20% from run to run, instruction counts under callgrind by a
# fraction of a percent, so this is the measure to compare changes of the call path with.
#
# The client (ferry-bench) and then the server (echo-server) run under callgrind, each for two
# durations; the difference of their instruction totals over the difference of their calls is
# the cost of one call, start-up excluded. The same shapes as the last table of scripts/bench.sh:
#   direct      ferry-bench --target, echo-server without filters
#   discovered  ferry-bench --config with a client that finds it through zookeeper://... with
#               round robin and the client auth filter, echo-server with the auth + ratelimit
#               filters
# Callgrind outputs are kept in $FERRY_PROFILE_DIR (default /tmp/ferry-profile) for
# callgrind_annotate --inclusive=yes. FERRY_PROFILE_SIDES="client" (or "server") profiles one.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/zookeeper.sh"
source "$(dirname "$0")/lib/echo_configs.sh"
cd "$FERRY_ROOT"

OUT_DIR="${FERRY_PROFILE_DIR:-/tmp/ferry-profile}"
ferry_install_packages "${FERRY_PACKAGES[@]}" valgrind
ferry_build build -- echo-server ferry-bench
mkdir -p "$OUT_DIR"
RUN_DIR="$(mktemp -d /tmp/ferry-profile-run.XXXXXX)"
trap 'ferry_stop_all; rm -rf "$RUN_DIR"' EXIT

ferry_write_echo_configs "$RUN_DIR"
ZK_PORT=$(ferry_free_port)
ferry_start_zookeeper "$ZK_PORT" "$RUN_DIR/zookeeper"
REGISTRY="zookeeper://127.0.0.1:$ZK_PORT"
ferry_write_discovered_client "$RUN_DIR" "$REGISTRY"

LOAD=(--conns 4 --depth 32 --size 16 --threads 1)
client_args() {
  case "$1" in
    direct) echo "--target 127.0.0.1:$2" ;;
    discovered) echo "--config $RUN_DIR/client-discovered.yaml" ;;
  esac
}
server_config() { [ "$1" = direct ] && echo echo || echo echo-filtered; }
callgrind() { valgrind --tool=callgrind --callgrind-out-file="$1" "${@:2}"; }
collected() { sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$1"; }
ok_calls() { sed -n 's/^calls: \([0-9]*\) ok.*/\1/p' "$1"; }

# profile_one <client|server> <kind> <seconds>: prints "<instructions> <calls>".
profile_one() {
  local side="$1" kind="$2" seconds="$3" port server_pid
  port=$(ferry_free_port)
  local server=(build/bin/echo-server --config "$RUN_DIR/$(server_config "$kind").yaml"
    --port "$port")
  [ "$kind" = discovered ] && server+=(--registry "$REGISTRY")
  if [ "$side" = server ]; then
    valgrind --tool=callgrind --callgrind-out-file="$OUT_DIR/server-$kind.out" "${server[@]}" \
      >"$RUN_DIR/server.log" 2>"$RUN_DIR/vg" &
  else
    "${server[@]}" >"$RUN_DIR/server.log" 2>&1 &
  fi
  server_pid=$!
  local deadline=$((SECONDS + 60))
  until grep -q "listening on" "$RUN_DIR/server.log"; do
    [ $SECONDS -lt $deadline ] || { cat "$RUN_DIR/server.log" >&2; return 1; }
    sleep 0.2
  done
  # shellcheck disable=SC2046
  if [ "$side" = client ]; then
    callgrind "$OUT_DIR/client-$kind.out" build/bin/ferry-bench echo $(client_args "$kind" "$port") \
      "${LOAD[@]}" --duration "$seconds" >"$RUN_DIR/bench.out" 2>"$RUN_DIR/vg"
  else
    build/bin/ferry-bench echo $(client_args "$kind" "$port") "${LOAD[@]}" \
      --duration "$seconds" >"$RUN_DIR/bench.out" 2>/dev/null
  fi
  kill -TERM "$server_pid"
  wait "$server_pid" || true
  echo "$(collected "$RUN_DIR/vg") $(ok_calls "$RUN_DIR/bench.out")"
}

printf '| side | direct (instructions/call) | discovered | discovered − direct |\n|---|---:|---:|---:|\n'
for side in ${FERRY_PROFILE_SIDES:-client server}; do
  declare -A per_call=()
  for kind in direct discovered; do
    read -r short_ir short_calls < <(profile_one "$side" "$kind" 2)
    read -r long_ir long_calls < <(profile_one "$side" "$kind" 6)
    per_call[$kind]=$(((long_ir - short_ir) / (long_calls - short_calls)))
  done
  printf '| %s | %s | %s | %s |\n' "$side" "${per_call[direct]}" "${per_call[discovered]}" \
    "$((per_call[discovered] - per_call[direct]))"
done
