#!/usr/bin/env bash
# Installs what is missing, builds, starts the echo provider on loopback, drives it with
# ferry-bench for a few seconds, prints what happened and stops the provider. Safe to run twice.
#   FERRY_DEMO_SECONDS=N   length of the load run (default 5)
source "$(dirname "$0")/lib/common.sh"
cd "$FERRY_ROOT"

ferry_install_packages "${FERRY_PACKAGES[@]}" python3
ferry_build build -DFERRY_BUILD_TESTS=OFF -- echo-server ferry-bench

RUN_DIR="$(mktemp -d /tmp/ferry-demo.XXXXXX)"
trap 'ferry_stop_all; rm -rf "$RUN_DIR"' EXIT
PORT="$(ferry_free_port)"
SECONDS_TO_RUN="${FERRY_DEMO_SECONDS:-5}"

ferry_start echo-server "echo-server listening on" 20 "$RUN_DIR/echo-server.log" \
  build/bin/echo-server --config demo-services/echo/config/echo-server.yaml --port "$PORT"

log "ferry-bench: 4 connections x 32 outstanding calls, 16-byte payloads, ${SECONDS_TO_RUN}s"
build/bin/ferry-bench echo --target "127.0.0.1:$PORT" --conns 4 --depth 32 --size 16 \
  --duration "$SECONDS_TO_RUN" | tee "$RUN_DIR/bench.out"

log "stopping echo-server"
ferry_stop_all
log "demo done: $(tail -n 1 "$RUN_DIR/bench.out")"
