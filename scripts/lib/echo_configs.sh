# The echo configurations scripts/bench.sh and scripts/profile-discovery.sh measure with, so
# that both measure the same thing. Source it; do not run it.
#   ferry_write_echo_configs DIR writes
#     DIR/echo.yaml            echo-server, one IO thread, one business thread
#     DIR/echo-filtered.yaml   the same with the auth + ratelimit server filters
#     DIR/client-filters.yaml  the client auth filter that matches it (ferry-bench --filters-from)
ferry_write_echo_configs() {
  local dir="$1"
  cat >"$dir/echo.yaml" <<YAML
log: {level: warn}
server:
  listen: 127.0.0.1:0
  io_threads: 1
  business_pool: {threads: 1, queue_capacity: 4096}
YAML
  cat "$dir/echo.yaml" - >"$dir/echo-filtered.yaml" <<YAML
  filters:
    - {name: auth, secret: bench-secret}
    - {name: ratelimit, per_method: {rate: 100000000, burst: 100000000}}
YAML
  cat >"$dir/client-filters.yaml" <<YAML
client:
  filters:
    - {name: auth, secret: bench-secret}
YAML
}
