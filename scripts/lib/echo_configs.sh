# The echo configurations scripts/bench.sh and scripts/profile-discovery.sh measure with, so
# that both measure the same thing. Source it; do not run it.
#   ferry_write_echo_configs DIR writes
#     DIR/echo.yaml            echo-server, one IO thread, one business thread
#     DIR/echo-filtered.yaml   the same with the auth + ratelimit server filters
#   ferry_write_discovered_client DIR REGISTRY writes
#     DIR/client-discovered.yaml  the client that finds echo-server-filtered through REGISTRY
#                                 with round robin and the matching client auth filter
#                                 (ferry-bench --config); failfast, as direct calls are
ferry_write_echo_configs() {
  local dir="$1"
  cat >"$dir/echo.yaml" <<YAML
log: {level: warn}
server:
  listen: 127.0.0.1:0
  io_threads: 1
  drain_delay_ms: 0
  business_pool: {threads: 1, queue_capacity: 4096}
YAML
  cat "$dir/echo.yaml" - >"$dir/echo-filtered.yaml" <<YAML
  filters:
    # One token per call: at the bench's ~600k calls/s the replay cache holds about
    # 600k x 1.25 x 1 s of them.
    - name: auth
      keys: [{id: bench, secret: bench-secret}]
      max_skew_ms: 1000
      replay_cache_entries: 2000000
    - {name: ratelimit, per_method: {rate: 100000000, burst: 100000000}}
YAML
}

ferry_write_discovered_client() {
  local dir="$1" registry="$2"
  cat >"$dir/client-discovered.yaml" <<YAML
registry: {url: "$registry"}
clients:
  echo:
    service: ferry.demo.EchoService
    timeout_ms: 5000
    loadbalance: {name: round_robin}
    fault_tolerance: {mode: failfast}
    filters:
      - {name: auth, keys: [{id: bench, secret: bench-secret}]}
YAML
}
