#!/usr/bin/env bash
# Installs what is missing and builds; starts a ZooKeeper and two echo providers registered in it
# (all on loopback, temporary directories); drives one provider directly and then both through
# discovery with ferry-bench; prints what happened and stops everything by PID. Safe to rerun.
#   FERRY_DEMO_SECONDS=N   length of each load run (default 5)
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/zookeeper.sh"
cd "$FERRY_ROOT"

ferry_install_packages "${FERRY_PACKAGES[@]}" python3
ferry_build build -DFERRY_BUILD_TESTS=OFF -- echo-server ferry-bench

RUN_DIR="$(mktemp -d /tmp/ferry-demo.XXXXXX)"
trap 'ferry_stop_all; rm -rf "$RUN_DIR"' EXIT
SECONDS_TO_RUN="${FERRY_DEMO_SECONDS:-5}"

ZK_PORT="$(ferry_free_port)"
ferry_start_zookeeper "$ZK_PORT" "$RUN_DIR/zookeeper"
REGISTRY="zookeeper://127.0.0.1:$ZK_PORT"

PORTS=()
for i in 1 2; do
  port="$(ferry_free_port)"
  PORTS+=("$port")
  ferry_start "echo-server #$i" "echo-server listening on" 30 "$RUN_DIR/echo-server-$i.log" \
    build/bin/echo-server --config demo-services/echo/config/echo-server.yaml --port "$port" \
    --registry "$REGISTRY"
done

log "ferry-bench direct to 127.0.0.1:${PORTS[0]}: 4 connections x 32 outstanding, 16 B, ${SECONDS_TO_RUN}s"
build/bin/ferry-bench echo --target "127.0.0.1:${PORTS[0]}" --conns 4 --depth 32 --size 16 \
  --duration "$SECONDS_TO_RUN" | tee "$RUN_DIR/direct.out"

log "ferry-bench through $REGISTRY (both providers, round robin), same load"
build/bin/ferry-bench echo --registry "$REGISTRY" --conns 4 --depth 32 --size 16 \
  --duration "$SECONDS_TO_RUN" | tee "$RUN_DIR/discovery.out"

log "stopping providers and ZooKeeper"
ferry_stop_all
log "direct:    $(tail -n 1 "$RUN_DIR/direct.out")"
log "discovery: $(tail -n 1 "$RUN_DIR/discovery.out")"
