#!/usr/bin/env bash
# HTTP on a Ferry port, measured against peers in the same run (docs/benchmarks.md):
# 1. wrk, keep-alive, POSTing a JSON echo to echo-server's gateway against nginx answering
#    `return 200` with the same body; one IO thread / one worker process each, wrk on one
#    thread; runs interleaved, medians and their ratio (target >= 0.5).
# 2. ferry-bench direct binary calls with per-call metrics on (the default) and off
#    (server.metrics / the client's metrics), interleaved pairs: what counting costs a call.
# Everything on loopback; servers stopped by PID.
#   FERRY_BENCH_SECONDS (default 5), FERRY_BENCH_PAIRS (default 7), FERRY_BENCH_CONNS (wrk's
#   connections, default 32), FERRY_BUILD_DIR (default build)
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/echo_configs.sh"
source "$(dirname "$0")/lib/nginx_wrk.sh"
cd "$FERRY_ROOT"

SECONDS_PER_RUN="${FERRY_BENCH_SECONDS:-5}"
PAIRS="${FERRY_BENCH_PAIRS:-7}"
CONNS="${FERRY_BENCH_CONNS:-32}"
BUILD_DIR="${FERRY_BUILD_DIR:-build}"
ferry_install_packages "${FERRY_PACKAGES[@]}" python3
ferry_build "$BUILD_DIR" -- echo-server ferry-bench

RUN_DIR="$(mktemp -d /tmp/ferry-bench-http.XXXXXX)"
trap 'ferry_stop_all; rm -rf "$RUN_DIR"' EXIT
ferry_write_echo_configs "$RUN_DIR"
sed 's/^server:$/server:\n  metrics: false/' "$RUN_DIR/echo.yaml" >"$RUN_DIR/echo-unmetered.yaml"

FERRY_PORT=$(ferry_free_port)
ferry_start echo-server "listening on" 20 "$RUN_DIR/ferry.log" \
  "$BUILD_DIR"/bin/echo-server --config "$RUN_DIR/echo.yaml" --port "$FERRY_PORT"
UNMETERED_PORT=$(ferry_free_port)
ferry_start echo-server-unmetered "listening on" 20 "$RUN_DIR/unmetered.log" \
  "$BUILD_DIR"/bin/echo-server --config "$RUN_DIR/echo-unmetered.yaml" --port "$UNMETERED_PORT"

# The gateway's answer to the request wrk sends, so that both servers write the same bytes.
PAYLOAD='{"payload":"aGVsbG8gZmVycnk="}'
NGINX_PORT=$(ferry_free_port)
ferry_start_nginx "$RUN_DIR/nginx" "$NGINX_PORT" "default_type application/json;" \
  "return 200 '$PAYLOAD';"

cat >"$RUN_DIR/post.lua" <<LUA
wrk.method = "POST"
wrk.body = '$PAYLOAD'
wrk.headers["Content-Type"] = "application/json"
LUA
expected="$(curl -s -XPOST "http://127.0.0.1:$FERRY_PORT/ferry.demo.EchoService/Echo" \
  -H 'Content-Type: application/json' -d "$PAYLOAD")"
[ "$expected" = "$PAYLOAD" ] || { echo "the gateway answered '$expected', not '$PAYLOAD'" >&2; exit 1; }

# wrk_rps <port>: requests per second of one wrk run POSTing the payload to the gateway's Echo.
wrk_rps() {
  ferry_wrk_rps "$CONNS" "$SECONDS_PER_RUN" "http://127.0.0.1:$1/ferry.demo.EchoService/Echo" \
    -s "$RUN_DIR/post.lua"
}

cat >"$RUN_DIR/client.yaml" <<YAML
clients:
  metered: {target: "127.0.0.1:$FERRY_PORT", timeout_ms: 5000}
  unmetered: {target: "127.0.0.1:$UNMETERED_PORT", timeout_ms: 5000, metrics: false}
YAML
# bench_qps <client>: QPS of one ferry-bench run, 4 connections x 32 outstanding, 16 B.
bench_qps() {
  "$BUILD_DIR"/bin/ferry-bench echo --config "$RUN_DIR/client.yaml" --client "$1" --conns 4 \
    --depth 32 --size 16 --duration "$SECONDS_PER_RUN" --threads 1 2>/dev/null | tail -n 1 |
    sed -n 's/.* qps=\([0-9]*\).*/\1/p'
}

: >"$RUN_DIR/ferry-http"
: >"$RUN_DIR/nginx-http"
for _ in $(seq "$PAIRS"); do
  wrk_rps "$FERRY_PORT" >>"$RUN_DIR/ferry-http"
  wrk_rps "$NGINX_PORT" >>"$RUN_DIR/nginx-http"
done
: >"$RUN_DIR/metered"
: >"$RUN_DIR/unmetered"
for _ in $(seq "$PAIRS"); do
  bench_qps metered >>"$RUN_DIR/metered"
  bench_qps unmetered >>"$RUN_DIR/unmetered"
done

ferry_http=$(median <"$RUN_DIR/ferry-http")
nginx_http=$(median <"$RUN_DIR/nginx-http")
metered=$(median <"$RUN_DIR/metered")
unmetered=$(median <"$RUN_DIR/unmetered")
printf '| measure (median of %s interleaved pairs) | Ferry | peer | ratio |\n' "$PAIRS"
printf '|---|---:|---:|---:|\n'
printf '| wrk -t1 -c%s, keep-alive JSON echo POST, req/s: echo-server gateway vs nginx return 200 | %s | %s | %s |\n' \
  "$CONNS" "$ferry_http" "$nginx_http" "$(ratio "$ferry_http" "$nginx_http")"
printf '| ferry-bench 4x32, 16 B, QPS: metrics on vs off | %s | %s | %s |\n' \
  "$metered" "$unmetered" "$(ratio "$metered" "$unmetered")"
echo "gateway/nginx = $(printf '%.2f' "$(pair_ratios "$RUN_DIR/ferry-http" "$RUN_DIR/nginx-http")") (median of the pairs' ratios); target >= 0.5"
echo "metrics on/off = $(printf '%.2f' "$(pair_ratios "$RUN_DIR/metered" "$RUN_DIR/unmetered")") (median of the pairs' ratios)"
