#!/usr/bin/env bash
# Installs what is missing, builds the libFuzzer targets of tests/fuzz into build-fuzz/ with
# clang (ASan+UBSan, cmake/FerryCompileOptions.cmake), runs every input of their regression
# directories once, then fuzzes each target for a bounded time on a copy of its seed corpus.
# Exits non-zero on any crash, leak, timeout or excess of memory, naming the input that
# reproduces it (docs/testing.md). Writes nothing into the checkout but build-fuzz/.
#   scripts/fuzz.sh [seconds]      seconds of fuzzing per target (default FERRY_FUZZ_SECONDS, 60)
#   FERRY_FUZZ_TARGETS="meta ..."  only these targets (default: all eight)
#   FERRY_FUZZ_WORK=<dir>          where the corpus copies and findings go (default: a new
#                                  directory under /tmp, removed when nothing was found)
source "$(dirname "$0")/lib/common.sh"
cd "$FERRY_ROOT"

FUZZ_SECONDS="${1:-${FERRY_FUZZ_SECONDS:-60}}"
if ! [[ "$FUZZ_SECONDS" =~ ^[0-9]+$ ]] || [ "$FUZZ_SECONDS" -eq 0 ]; then
  echo "usage: $0 [seconds per target, a positive integer] (got '$FUZZ_SECONDS')" >&2
  exit 2
fi
read -r -a TARGETS <<<"${FERRY_FUZZ_TARGETS:-frame_decoder meta json_gateway provider_record http_session forwarded_for user_token auth_token}"
for target in "${TARGETS[@]}"; do
  if [ ! -d "tests/fuzz/corpus/$target" ]; then
    echo "unknown fuzz target '$target' (the targets are: $(ls tests/fuzz/corpus | xargs))" >&2
    exit 2
  fi
done

ferry_install_packages "${FERRY_PACKAGES[@]}"

# A tree of its own: the fuzzers need clang (libFuzzer), the rest of the build is g++'s.
CC="$FERRY_FUZZ_CC" CXX="$FERRY_FUZZ_CXX" ferry_build build-fuzz \
  -DCMAKE_CXX_COMPILER="$FERRY_FUZZ_CXX" -DFERRY_BUILD_FUZZERS=ON -DFERRY_BUILD_TESTS=ON \
  -DFERRY_BUILD_BENCH=OFF -- ferry_fuzzers

WORK="${FERRY_FUZZ_WORK:-$(mktemp -d /tmp/ferry-fuzz.XXXXXX)}"
mkdir -p "$WORK"
# libFuzzer's limits: a single input running over 10 s, a process over 2 GiB, or memory still
# allocated and unreachable once an input is done, is a finding like a crash.
FUZZ_FLAGS=(-timeout=10 -rss_limit_mb=2048 -detect_leaks=1 -print_final_stats=1)
export UBSAN_OPTIONS="print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
failures=()

# run_fuzzer <target> <log> <seconds allowed> <libFuzzer args...>: false on any finding, and on
# a process still there after the seconds allowed (a hang libFuzzer's own timeout missed).
run_fuzzer() {
  local target="$1" log="$2" allowed="$3"
  shift 3
  local status=0
  timeout --kill-after=10 "$allowed" build-fuzz/bin/"${target}_fuzzer" "${FUZZ_FLAGS[@]}" "$@" \
    >"$log" 2>&1 || status=$?
  if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    echo "${target}_fuzzer did not exit within ${allowed}s" >>"$log"
  fi
  return "$status"
}

# Regression inputs: every file once; libFuzzer names each before running it.
for target in "${TARGETS[@]}"; do
  dir="tests/fuzz/regression/$target"
  [ -d "$dir" ] || continue
  mapfile -t inputs < <(find "$dir" -type f | sort)
  [ ${#inputs[@]} -gt 0 ] || continue
  log "fuzz regression: $target (${#inputs[@]} inputs)"
  if ! run_fuzzer "$target" "$WORK/$target-regression.log" $((60 + 15 * ${#inputs[@]})) \
      "${inputs[@]}"; then
    tail -n 40 "$WORK/$target-regression.log" >&2
    failed=$(grep '^Running: ' "$WORK/$target-regression.log" | tail -n 1 | cut -d' ' -f2-)
    failures+=("$target: regression input ${failed:-?} fails again; \
run again with: build-fuzz/bin/${target}_fuzzer ${failed:-<input>}")
  fi
done

for target in "${TARGETS[@]}"; do
  corpus="$WORK/$target/corpus" findings="$WORK/$target/findings"
  rm -rf "$WORK/$target"
  mkdir -p "$corpus" "$findings"
  cp tests/fuzz/corpus/"$target"/* "$corpus/"
  [ -d "tests/fuzz/regression/$target" ] && find "tests/fuzz/regression/$target" -type f \
    -exec cp {} "$corpus/" \;
  log "fuzzing $target for ${FUZZ_SECONDS}s"
  if run_fuzzer "$target" "$WORK/$target.log" $((FUZZ_SECONDS + 120)) \
      -max_total_time="$FUZZ_SECONDS" -artifact_prefix="$findings/" "$corpus"; then
    grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb)' "$WORK/$target.log" | xargs
    continue
  fi
  tail -n 60 "$WORK/$target.log" >&2
  found=$(find "$findings" -type f | head -n 1)
  failures+=("$target: reproducer ${found:-(none written; see $WORK/$target.log)}; \
run again with: build-fuzz/bin/${target}_fuzzer ${found:-<input>}")
done

if [ ${#failures[@]} -gt 0 ]; then
  printf '\033[1;31mfuzzing found problems:\033[0m\n' >&2
  printf '  %s\n' "${failures[@]}" >&2
  echo "corpus copies, logs and findings are kept in $WORK" >&2
  exit 1
fi
[ -n "${FERRY_FUZZ_WORK:-}" ] || rm -rf "$WORK"
log "fuzzing found nothing (${FUZZ_SECONDS}s per target: ${TARGETS[*]})"
