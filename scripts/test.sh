#!/usr/bin/env bash
# Installs what is missing, builds everything into build/, runs the whole suite through ctest,
# builds and runs the out-of-tree example against an install of build/ (scripts/example.sh),
# runs a 60 s soak (scripts/soak.sh: seckill and echo under load while providers, ZooKeeper,
# Redis and the order consumer are killed and restarted), then the concurrency and parsing
# tests again under ThreadSanitizer and ASan+UBSan, and fuzzes the parsers for a bounded time
# (scripts/fuzz.sh, FERRY_FUZZ_SECONDS per target). Exits non-zero on any failure. Safe to run
# twice.
#   FERRY_SKIP_SANITIZERS=1  skips the sanitizer passes and fuzzing (for quick local iteration).
#   FERRY_SKIP_FUZZ=1        skips fuzzing alone.
#   FERRY_SKIP_SOAK=1        skips the soak.
source "$(dirname "$0")/lib/common.sh"
cd "$FERRY_ROOT"

ferry_install_packages "${FERRY_PACKAGES[@]}" python3

# Explicit, because build/ is shared with demo.sh and bench.sh, which build only their targets.
ferry_build build -DFERRY_BUILD_TESTS=ON -DFERRY_BUILD_BENCH=ON
log "running the test suite (build/)"
ctest --test-dir build --output-on-failure -j "$FERRY_JOBS" --timeout 600
# The install and an out-of-tree consumer of it, reusing build/ (about 10 s).
log "out-of-tree example against an install (scripts/example.sh)"
"$FERRY_ROOT/scripts/example.sh"
# The short soak (about 1.5 minutes with its start-up, draining and checks); scripts/soak.sh
# alone runs 10 minutes.
if [ "${FERRY_SKIP_SOAK:-0}" = "1" ]; then
  log "skipping the soak: FERRY_SKIP_SOAK=1"
else
  log "60 s soak under chaos (scripts/soak.sh --duration 60)"
  "$FERRY_ROOT/scripts/soak.sh" --duration 60
fi

# Sanitizer passes run "where time allows": each starts only while the whole script is within
# FERRY_SANITIZER_BUDGET_S (default 40 min), so a slow machine cannot push CI past its limit.
# Their trees are Debug builds of just the tests below: quicker to compile than optimized ones.
SANITIZER_BUDGET_S="${FERRY_SANITIZER_BUDGET_S:-2400}"
run_sanitized() {
  local kind="$1" dir="$2" options_var="$3" options="$4"
  shift 4
  if [ $SECONDS -gt "$SANITIZER_BUDGET_S" ]; then
    log "skipping the $kind pass: ${SECONDS}s elapsed, budget ${SANITIZER_BUDGET_S}s"
    return
  fi
  ferry_build "$dir" -DFERRY_SANITIZE="$kind" -DFERRY_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=Debug \
    -- "$@"
  for t in "$@"; do
    log "$kind sanitizer: $t"
    env "$options_var=$options" "$dir/bin/$t" --gtest_brief=1
  done
}

if [ "${FERRY_SKIP_SANITIZERS:-0}" != "1" ]; then
  # Threads and sockets under TSan; parsing and memory under ASan+UBSan.
  run_sanitized thread build-tsan TSAN_OPTIONS \
    "halt_on_error=1 second_deadlock_stack=1 suppressions=$FERRY_ROOT/scripts/tsan.supp" \
    client_test server_test e2e_test app_test loadbalance_test idgen_test seckill_store_test \
    storage_sql_test storage_redis_test http_test metrics_test admin_pages_test like_service_test \
    like_recovery_test storage_sharded_lru_test shortlink_visit_recorder_test tls_test
  run_sanitized address build-asan ASAN_OPTIONS "detect_leaks=1" \
    codec_test client_test server_test http_test json_codec_test config_test admin_pages_test \
    tls_test
  # Fuzzing, under the same budget: its own clang tree, then 8 targets x FERRY_FUZZ_SECONDS.
  if [ "${FERRY_SKIP_FUZZ:-0}" = "1" ]; then
    log "skipping fuzzing: FERRY_SKIP_FUZZ=1"
  elif [ $SECONDS -gt "$SANITIZER_BUDGET_S" ]; then
    log "skipping fuzzing: ${SECONDS}s elapsed, budget ${SANITIZER_BUDGET_S}s"
  else
    "$FERRY_ROOT/scripts/fuzz.sh"
  fi
fi
log "all tests passed"
