#!/usr/bin/env bash
# Ferry used from outside its tree, by the very commands docs/getting-started.md shows: builds
# Ferry in build/ (nothing left to do after scripts/test.sh's build), installs it into a
# temporary prefix, builds examples/echo in a temporary folder against that prefix alone, starts
# its provider on a free loopback port, calls it once with its client and checks the answer,
# then stops the provider by PID and checks it exited cleanly. Last, configures
# examples/framework-only, a consumer of ferry::framework alone, and fails if hiredis, MariaDB
# or SQLite were looked up for it. Exits non-zero, saying which step failed, on any failure.
source "$(dirname "$0")/lib/common.sh"
cd "$FERRY_ROOT"

ferry_install_packages "${FERRY_PACKAGES[@]}" python3

prefix="$(mktemp -d /tmp/ferry-prefix.XXXXXX)"
work="$(mktemp -d /tmp/ferry-example.XXXXXX)"
trap 'ferry_stop_all; rm -rf "$prefix" "$work"' EXIT

fail() {
  echo "example.sh: $*" >&2
  exit 1
}

log "building Ferry in build/ and installing it into $prefix"
cmake -S . -B build >/dev/null || fail "configuring Ferry failed"
if ! cmake --build build -j "$(nproc)" >"$work/ferry-build.log"; then
  tail -n 50 "$work/ferry-build.log" >&2
  fail "building Ferry failed"
fi
cmake --install build --prefix "$prefix" >/dev/null || fail "cmake --install failed"

log "building examples/echo against $prefix"
cmake -S examples/echo -B "$work/echo" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null ||
  fail "configuring examples/echo against the install failed"
cmake --build "$work/echo" || fail "building examples/echo failed"

port="$(ferry_free_port)"
ferry_start greeter-provider "greeter listening on 127.0.0.1:$port" 30 "$work/provider.log" \
  "$work/echo/greeter-provider" --config examples/echo/greeter.yaml --port "$port"
provider_pid="${FERRY_PIDS[-1]}"

log "greeter-client, finding the provider through static://127.0.0.1:$port"
answer="$("$work/echo/greeter-client" --config examples/echo/greeter.yaml \
  --registry "static://127.0.0.1:$port")" || fail "greeter-client failed (its error is above)"
[ "$answer" = "hello, ferry" ] || fail "greeter-client printed '$answer', expected 'hello, ferry'"
log "greeter-client printed: $answer"

kill -TERM "$provider_pid"
for _ in $(seq 100); do kill -0 "$provider_pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$provider_pid" 2>/dev/null && fail "greeter-provider still running 10 s after SIGTERM"
status=0
wait "$provider_pid" || status=$?
FERRY_PIDS=()
if [ "$status" -ne 0 ]; then
  cat "$work/provider.log" >&2
  fail "greeter-provider exited $status on SIGTERM (its log is above)"
fi
log "greeter-provider stopped cleanly"

log "configuring examples/framework-only: ferry::framework alone"
if ! cmake -S examples/framework-only -B "$work/framework-only" -DCMAKE_PREFIX_PATH="$prefix" \
  --trace-expand >"$work/framework-only.trace" 2>&1; then
  tail -n 30 "$work/framework-only.trace" >&2
  fail "configuring examples/framework-only failed"
fi
if grep -Eiq 'hiredis|mariadb|sqlite' "$work/framework-only.trace"; then
  grep -Ei 'hiredis|mariadb|sqlite' "$work/framework-only.trace" | head -n 5 >&2
  fail "find_package(ferry) without COMPONENTS storage looked up a storage library"
fi
log "out-of-tree example passed"
