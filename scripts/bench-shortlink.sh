#!/usr/bin/env bash
# The short-link service's redirect path on both backends, each measured against a peer in the
# same run (docs/benchmarks.md, "Short links"): one shortlink-server on the embedded backend
# (SQLite in a temporary directory) and one on redis+mariadb (Debian's redis-server and mariadbd,
# free ports, temporary data directories), both with one IO thread and the same settings.
# 1. wrk, keep-alive, GET of one cached short link on each shortlink-server against nginx
#    answering `return 302` (one worker); wrk on one thread; each round runs every backend then
#    nginx, in turn, after the backend's statistics of the run have settled; medians and their
#    ratio per backend (target >= 0.5).
# 2. ferry-bench shortlink on each backend: a Zipf mix over 1000 links with 5% unknown codes, an
#    unknown-code flood and its database queries per 1000 requests (target < 10), and PV == 302s
#    per link.
# Everything on loopback; servers stopped by PID.
#   FERRY_BENCH_SECONDS (default 5), FERRY_BENCH_PAIRS (default 5), FERRY_BENCH_CONNS (wrk's
#   connections, default 32), FERRY_BUILD_DIR (default build)
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/redis.sh"
source "$(dirname "$0")/lib/mariadb.sh"
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

BACKENDS=(embedded redis+mariadb)
declare -A PORT KEY CODE
# file name of a backend's results: redis+mariadb -> redis-mariadb
slug() { tr '+' '-' <<<"$1"; }

PORT[embedded]=$(ferry_free_port)
ferry_shortlink_start "$BUILD_DIR/bin" "$RUN_DIR/embedded" "${PORT[embedded]}" "$TOKEN" \
  "  backend: embedded
  embedded: {path: $RUN_DIR/embedded/shortlink.db}"

ferry_shortlink_redis_mariadb "$RUN_DIR/redis-mariadb"
PORT[redis+mariadb]=$(ferry_free_port)
ferry_shortlink_start "$BUILD_DIR/bin" "$RUN_DIR/redis-mariadb" "${PORT[redis+mariadb]}" \
  "$TOKEN" "$SHORTLINK_BACKEND_YAML"

for b in "${BACKENDS[@]}"; do
  port="${PORT[$b]}"
  KEY[$b]=$(ferry_shortlink_key "$port" "$TOKEN" "bench-$(slug "$b")")
  [ -n "${KEY[$b]}" ] || { echo "no API key from the $b backend" >&2; exit 1; }
  CODE[$b]=$(curl -sf -XPOST "http://127.0.0.1:$port/ferry.shortlink.ShortLinkService/CreateLink" \
    -H "Authorization: Bearer ${KEY[$b]}" -H 'Content-Type: application/json' \
    -d '{"requestId":"wrk","longUrl":"https://example.com/"}' |
    sed -n 's/.*"code":"\([^"]*\)".*/\1/p')
  [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/${CODE[$b]}")" = 302 ] ||
    { echo "the short link /${CODE[$b]} on the $b backend does not redirect" >&2; exit 1; }
done

NGINX_PORT=$(ferry_free_port)
ferry_start_nginx "$RUN_DIR/nginx" "$NGINX_PORT" 'add_header Cache-Control "private, no-store";' \
  "return 302 https://example.com/;"

# wrk_rps <port> <code>: requests per second of one wrk run GETting the short link. wrk sends no
# User-Agent, so the service counts these visits as bots: recorded all the same.
wrk_rps() { ferry_wrk_rps "$CONNS" "$SECONDS_PER_RUN" "http://127.0.0.1:$1/$2"; }

# settle <backend>: waits (60 s at most) until the wrk link's visits (PV + bots, from Stats)
# have stopped growing for a second, so that the statistics of one run are not written during
# the next one.
settle() {
  local b="$1" last=-1 same=0 body visits
  for _ in $(seq 120); do
    body=$(curl -s -XPOST "http://127.0.0.1:${PORT[$b]}/ferry.shortlink.ShortLinkService/Stats" \
      -H "Authorization: Bearer ${KEY[$b]}" -H 'Content-Type: application/json' \
      -d "{\"code\":\"${CODE[$b]}\"}")
    visits=$(($(sed -n 's/.*"pv":"\{0,1\}\([0-9]*\).*/\1/p' <<<"$body" | grep . || echo 0) +
      $(sed -n 's/.*"botVisits":"\{0,1\}\([0-9]*\).*/\1/p' <<<"$body" | grep . || echo 0)))
    if [ "$visits" -eq "$last" ]; then
      same=$((same + 1))
      [ "$same" -lt 2 ] || return 0
    else
      same=0
      last="$visits"
    fi
    sleep 0.5
  done
  echo "the $b backend's statistics did not settle within 60 s (visits: $last)" >&2
}

for b in "${BACKENDS[@]}"; do : >"$RUN_DIR/$(slug "$b").ferry"; : >"$RUN_DIR/$(slug "$b").nginx"; done
for i in $(seq "$PAIRS"); do
  for b in "${BACKENDS[@]}"; do
    log "round $i/$PAIRS: wrk on the $b backend, then on nginx"
    wrk_rps "${PORT[$b]}" "${CODE[$b]}" >>"$RUN_DIR/$(slug "$b").ferry"
    settle "$b"
    wrk_rps "$NGINX_PORT" "${CODE[$b]}" >>"$RUN_DIR/$(slug "$b").nginx"
  done
done

declare -A RESULT LATENCY
BENCH_RC=0
for b in "${BACKENDS[@]}"; do
  out="$RUN_DIR/$(slug "$b").bench"
  log "ferry-bench shortlink on the $b backend: 1000 links, 200000 redirects (Zipf s=1.1, 5% unknown), 20000 unknown"
  "$BUILD_DIR"/bin/ferry-bench shortlink --target "127.0.0.1:${PORT[$b]}" --api-key "${KEY[$b]}" \
    --links 1000 --requests 200000 --conns 8 --unknown-probe 20000 >"$out" 2>&1 || BENCH_RC=1
  cat "$out"
  RESULT[$b]=$(grep '^RESULT' "$out" | tail -n 1 || true)
  LATENCY[$b]=$(grep '^latency us:' "$out" | tail -n 1 || true)
done

# field <backend> <name>: a field of the backend's RESULT line (or of its latency line).
field() { sed -n "s/.*[ :]$2=\([^ ]*\).*/\1/p" <<<"${RESULT[$1]} ${LATENCY[$1]}" | head -n 1; }

printf '\n| measure (median of %s interleaved pairs) | Ferry | nginx | ratio |\n' "$PAIRS"
printf '|---|---:|---:|---:|\n'
for b in "${BACKENDS[@]}"; do
  f="$RUN_DIR/$(slug "$b").ferry" n="$RUN_DIR/$(slug "$b").nginx"
  ferry=$(median <"$f")
  nginx=$(median <"$n")
  printf '| wrk -t1 -c%s, keep-alive GET of a cached short link, 302/s: shortlink-server (%s) vs nginx return 302 | %s | %s | %s (%.2f median of the pairs) |\n' \
    "$CONNS" "$b" "$ferry" "$nginx" "$(ratio "$ferry" "$nginx")" "$(pair_ratios "$f" "$n")"
done
printf '\n| ferry-bench shortlink (8 connections) | %s | %s |\n|---|---:|---:|\n' "${BACKENDS[@]}"
row() {
  local label="$1"
  shift
  printf '| %s |' "$label"
  for b in "${BACKENDS[@]}"; do printf ' %s |' "$("$@" "$b")"; done
  printf '\n'
}
rps_of() { field "$1" rps; }
latency_of() { echo "$(field "$1" p50) / $(field "$1" p99) / $(field "$1" p999)"; }
db_of() { field "$1" db_queries_per_1k_unknown; }
pv_of() {
  if [ "$(field "$1" pv_matches)" = 1 ]; then
    echo "yes ($(field "$1" pv)), settled $(field "$1" settle_ms) ms after the burst"
  else
    echo "no"
  fi
}
row "redirects/s (302 and 404)" rps_of
row "latency p50 / p99 / p99.9 µs" latency_of
row "database queries per 1,000 unknown-code requests (target < 10)" db_of
row "PV + bots == 302s on every link" pv_of
for b in "${BACKENDS[@]}"; do
  echo "$b, the pairs in order (shortlink-server/nginx 302/s): $(paste -d/ "$RUN_DIR/$(slug "$b").ferry" "$RUN_DIR/$(slug "$b").nginx" | paste -sd' ')"
done
echo "target: shortlink/nginx >= 0.5 on each backend"
for b in "${BACKENDS[@]}"; do echo "$b: ${RESULT[$b]:-no RESULT line}"; done
for b in "${BACKENDS[@]}"; do
  grep -q "passed=1" <<<"${RESULT[$b]}" || { echo "ferry-bench shortlink failed on the $b backend" >&2; BENCH_RC=1; }
done
exit "$BENCH_RC"
