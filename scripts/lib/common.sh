# Shared by scripts/demo.sh and scripts/test.sh. Source it; do not run it.
set -euo pipefail

FERRY_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
FERRY_JOBS="${FERRY_JOBS:-$(nproc)}"
# ccache keyed on paths relative to the checkout, so that a fresh clone elsewhere (as CI makes)
# still hits the cache.
export CCACHE_BASEDIR="$FERRY_ROOT" CCACHE_NOHASHDIR=1

# Everything the build and the tests need, from Debian's archive only.
FERRY_PACKAGES=(
  build-essential cmake pkg-config ccache clang-format curl
  # Boost 1.81 rather than Debian 12's default 1.74 (libboost-dev): Boost.URL is only in 1.81,
  # and the two -dev packages conflict.
  libboost1.81-dev libboost-url1.81-dev protobuf-compiler libprotobuf-dev libprotoc-dev
  libidn2-dev  # shortlink: IDN target hosts to punycode
  libxxhash-dev  # shortlink: the Bloom filter's keyed hash (XXH3)
  # shortlink: QR codes (libqrencode, libpng); the tests decode them with zbar
  libqrencode-dev libpng-dev libzbar-dev
  libzstd-dev libyaml-cpp-dev libspdlog-dev rapidjson-dev
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  libgrpc++-dev protobuf-compiler-grpc
  zookeeper libzookeeper-mt-dev
  libssl-dev openssl  # TLS; the tests make their certificates with the openssl CLI
  redis-server mariadb-server libhiredis-dev libmariadb-dev libsqlite3-dev sqlite3
  # promtool checks the metrics exposition (tests/metrics); the server scrapes a live App, and
  # chromium renders its status page headless (tests/admin_clients)
  prometheus chromium
  nginx-light wrk
  # scripts/fuzz.sh: clang, and its runtimes for -fsanitize=fuzzer,address,undefined
  clang-14 libclang-rt-14-dev
)
# The compilers of build-fuzz/ (scripts/fuzz.sh): libFuzzer is clang's.
FERRY_FUZZ_CC=clang-14
FERRY_FUZZ_CXX=clang++-14

log() { printf '\033[1;34m==>\033[0m %s\n' "$*"; }

ferry_install_packages() {
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
      missing+=("$pkg")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    log "packages present"
    return
  fi
  log "installing: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  # Debian's service packages try to start their daemons; tests start their own instead.
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# ferry_build <build-dir> [cmake args...] -- [targets...]
ferry_build() {
  local dir="$1"
  shift
  local cmake_args=() targets=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do cmake_args+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  targets=("$@")
  log "configuring $dir"
  cmake -S "$FERRY_ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${cmake_args[@]}" >/dev/null
  log "building $dir ${targets[*]:-(all)}"
  if [ ${#targets[@]} -gt 0 ]; then
    cmake --build "$dir" -j "$FERRY_JOBS" --target "${targets[@]}"
  else
    cmake --build "$dir" -j "$FERRY_JOBS"
  fi
}

# Starts a command in the background, remembers its PID for ferry_stop_all, and waits until
# its stdout shows `ready_pattern` (or fails after `timeout` seconds).
FERRY_PIDS=()
ferry_start() {
  local name="$1" ready_pattern="$2" timeout="$3" logfile="$4"
  shift 4
  "$@" >"$logfile" 2>&1 &
  local pid=$!
  FERRY_PIDS+=("$pid")
  local deadline=$((SECONDS + timeout))
  until grep -q "$ready_pattern" "$logfile" 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "$name exited before it was ready; its log:" >&2
      cat "$logfile" >&2
      return 1
    fi
    if [ $SECONDS -ge $deadline ]; then
      echo "$name not ready after ${timeout}s; its log:" >&2
      cat "$logfile" >&2
      return 1
    fi
    sleep 0.1
  done
  log "$name ready (pid $pid)"
}

ferry_stop_all() {
  for pid in "${FERRY_PIDS[@]:-}"; do
    [ -n "$pid" ] || continue
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${FERRY_PIDS[@]:-}"; do
    [ -n "$pid" ] || continue
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  FERRY_PIDS=()
}

# A free TCP port on loopback, chosen by the kernel.
ferry_free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}
