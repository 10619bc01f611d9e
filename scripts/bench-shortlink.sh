#!/usr/bin/env bash
# The short-link service's redirect path, measured against a peer in the same run
# (docs/benchmarks.md, "Short links"):
# 1. wrk, keep-alive, GET of one cached short link on shortlink-server (embedded backend, one IO
#    thread) against nginx answering `return 302` (one worker); wrk on one thread; runs
#    interleaved, medians and their ratio (target >= 0.5).
# 2. ferry-bench shortlink: a Zipf mix over 1000 links with 5% unknown codes, an unknown-code
#    flood and its database queries per 1000 requests (target < 10), and PV == 302s per link.
# Everything on loopback; servers stopped by PID.
#   FERRY_BENCH_SECONDS (default 5), FERRY_BENCH_PAIRS (default 5), FERRY_BENCH_CONNS (wrk's
#   connections, default 32), FERRY_BUILD_DIR (default build)
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/shortlink.sh"
source "$(dirname "$0")/lib/nginx_wrk.sh"
cd "$FERRY_ROOT"

SECONDS_PER_RUN="${FERRY_BENCH_SECONDS:-5}"
PAIRS="${FERRY_BENCH_PAIRS:-5}"
CONNS="${FERRY_BENCH_CONNS:-32}"
BUILD_DIR="${FERRY_BUILD_DIR:-build}"
ferry_install_packages "${FERRY_PACKAGES[@]}" python3 nginx wrk curl
ferry_build "$BUILD_DIR" -- shortlink-server ferry-bench

RUN_DIR="$(mktemp -d /tmp/ferry-bench-shortlink.XXXXXX)"
trap 'ferry_stop_all; rm -rf "$RUN_DIR"' EXIT
TOKEN="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"  # 128 bits, the least allowed
PORT=$(ferry_free_port)
ferry_shortlink_start "$BUILD_DIR/bin" "$RUN_DIR/shortlink" "$PORT" "$TOKEN" \
  "  backend: embedded
  embedded: {path: $RUN_DIR/shortlink/shortlink.db}"
KEY=$(ferry_shortlink_key "$PORT" "$TOKEN" bench)
[ -n "$KEY" ] || { echo "no API key" >&2; exit 1; }
CODE=$(curl -sf -XPOST "http://127.0.0.1:$PORT/ferry.shortlink.ShortLinkService/CreateLink" \
  -H "Authorization: Bearer $KEY" -d '{"requestId":"wrk","longUrl":"https://example.com/"}' |
  sed -n 's/.*"code":"\([^"]*\)".*/\1/p')
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/$CODE")" = 302 ] ||
  { echo "the short link /$CODE does not redirect" >&2; exit 1; }

NGINX_PORT=$(ferry_free_port)
ferry_start_nginx "$RUN_DIR/nginx" "$NGINX_PORT" 'add_header Cache-Control "private, no-store";' \
  "return 302 https://example.com/;"

# wrk_rps <port>: requests per second of one wrk run GETting the short link. wrk sends no
# User-Agent, so the service counts these visits as bots: recorded all the same.
wrk_rps() { ferry_wrk_rps "$CONNS" "$SECONDS_PER_RUN" "http://127.0.0.1:$1/$CODE"; }

: >"$RUN_DIR/ferry"
: >"$RUN_DIR/nginx-rps"
for _ in $(seq "$PAIRS"); do
  wrk_rps "$PORT" >>"$RUN_DIR/ferry"
  wrk_rps "$NGINX_PORT" >>"$RUN_DIR/nginx-rps"
done

log "ferry-bench shortlink: 1000 links, 200000 redirects (Zipf s=1.1, 5% unknown), 20000 unknown"
"$BUILD_DIR"/bin/ferry-bench shortlink --target "127.0.0.1:$PORT" --api-key "$KEY" --links 1000 \
  --requests 200000 --conns 8 --unknown-probe 20000 | tee "$RUN_DIR/bench.out"
RESULT=$(tail -n 1 "$RUN_DIR/bench.out")

ferry=$(median <"$RUN_DIR/ferry")
nginx=$(median <"$RUN_DIR/nginx-rps")
printf '| measure (median of %s interleaved pairs) | Ferry | nginx | ratio |\n' "$PAIRS"
printf '|---|---:|---:|---:|\n'
printf '| wrk -t1 -c%s, keep-alive GET of a cached short link, 302/s: shortlink-server vs nginx return 302 | %s | %s | %s |\n' \
  "$CONNS" "$ferry" "$nginx" "$(ratio "$ferry" "$nginx")"
echo "shortlink/nginx = $(printf '%.2f' "$(pair_ratios "$RUN_DIR/ferry" "$RUN_DIR/nginx-rps")") (median of the pairs' ratios); target >= 0.5"
echo "database queries per 1000 unknown codes: $(sed -n 's/.*db_queries_per_1k_unknown=\([^ ]*\).*/\1/p' <<<"$RESULT"); target < 10"
echo "$RESULT"
grep -q "passed=1" <<<"$RESULT"
