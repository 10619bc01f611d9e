#!/usr/bin/env bash
# Installs what is missing, builds everything into build/, runs the whole suite through ctest,
# then the concurrency and parsing tests again under ThreadSanitizer and ASan+UBSan.
# Exits non-zero on any failure. Safe to run twice.
#   FERRY_SKIP_SANITIZERS=1  skips the sanitizer passes (for quick local iteration).
source "$(dirname "$0")/lib/common.sh"
cd "$FERRY_ROOT"

ferry_install_packages "${FERRY_PACKAGES[@]}" python3

ferry_build build
log "running the test suite (build/)"
ctest --test-dir build --output-on-failure -j "$FERRY_JOBS" --timeout 600

if [ "${FERRY_SKIP_SANITIZERS:-0}" != "1" ]; then
  # The tests that exercise threads, sockets and parsing; each binary is run directly because
  # the sanitizer trees build only these targets.
  SANITIZED_TESTS=(codec_test client_test server_test e2e_test loadbalance_test)
  run_sanitized() {
    local dir="$1" name="$2"
    for t in "${SANITIZED_TESTS[@]}"; do
      log "$name: $t"
      "$dir/bin/$t" --gtest_brief=1
    done
  }
  ferry_build build-tsan -DFERRY_SANITIZE=thread -DFERRY_BUILD_BENCH=OFF -- "${SANITIZED_TESTS[@]}"
  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" run_sanitized build-tsan ThreadSanitizer
  ferry_build build-asan -DFERRY_SANITIZE=address -DFERRY_BUILD_BENCH=OFF -- "${SANITIZED_TESTS[@]}"
  ASAN_OPTIONS="detect_leaks=1" UBSAN_OPTIONS="print_stacktrace=1" \
    run_sanitized build-asan "ASan+UBSan"
fi
log "all tests passed"
