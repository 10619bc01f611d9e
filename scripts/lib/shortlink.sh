# shortlink-server for the scripts: a config, the provider started by ferry_start (its PID in
# FERRY_PIDS), and a tenant with an API key made through the admin calls. Source after common.sh.

# ferry_shortlink_start <bin_dir> <dir> <port> <admin_token> <backend_yaml> [io_threads]
# <backend_yaml>: the `service:` lines choosing the backend (indented two spaces).
ferry_shortlink_start() {
  local bin="$1" dir="$2" port="$3" token="$4" backend="$5" io="${6:-1}"
  mkdir -p "$dir"
  cat >"$dir/shortlink-server.yaml" <<YAML
log: {level: warn}
server: {listen: 127.0.0.1:$port, io_threads: $io}
service:
$backend
  public_base_url: http://127.0.0.1:$port
  admin_token_sha256: "$(printf %s "$token" | sha256sum | cut -d' ' -f1)"
  codes: {generator: random, length: 8}
  # The load generator is one client sending unknown codes on purpose.
  not_found_per_minute: 0
YAML
  ferry_start shortlink-server "shortlink-server listening on" 60 "$dir/shortlink-server.log" \
    "$bin/shortlink-server" --config "$dir/shortlink-server.yaml"
}

# ferry_shortlink_key <port> <admin_token> <tenant_name>: prints a new tenant's API key.
ferry_shortlink_key() {
  local base="http://127.0.0.1:$1/ferry.shortlink.ShortLinkService" tenant
  tenant=$(curl -sf -XPOST "$base/CreateTenant" -H "Authorization: Bearer $2" \
    -H 'Content-Type: application/json' -d "{\"name\":\"$3\"}" | sed -n 's/.*"tenantId":"\{0,1\}\([0-9]*\).*/\1/p')
  [ -n "$tenant" ] || { echo "CreateTenant failed on port $1" >&2; return 1; }
  curl -sf -XPOST "$base/IssueApiKey" -H "Authorization: Bearer $2" \
    -H 'Content-Type: application/json' -d "{\"tenantId\":$tenant}" | sed -n 's/.*"apiKey":"\(slk_[0-9a-f]*\)".*/\1/p'
}

# ferry_shortlink_redis_mariadb <dir>: the stores of the redis+mariadb backend, for
# ferry_shortlink_start: Redis (append-only file, fsync every second) and MariaDB (database
# ferry_shortlink), each on a free loopback port with its data under <dir>/redis and
# <dir>/mariadb, their PIDs in FERRY_PIDS (ferry_start_redis and ferry_start_mariadb: source
# redis.sh and mariadb.sh too). Sets SHORTLINK_REDIS_PORT, SHORTLINK_MARIADB_PORT and
# SHORTLINK_BACKEND_YAML: the backend's `service:` lines of
# demo-services/shortlink/config/shortlink-server-redis.yaml, with these ports.
ferry_shortlink_redis_mariadb() {
  local dir="$1"
  SHORTLINK_REDIS_PORT="$(ferry_free_port)"
  ferry_start_redis "$SHORTLINK_REDIS_PORT" "$dir/redis" --appendonly yes --appendfsync everysec
  SHORTLINK_MARIADB_PORT="$(ferry_free_port)"
  ferry_start_mariadb "$SHORTLINK_MARIADB_PORT" "$dir/mariadb" ferry_shortlink
  SHORTLINK_BACKEND_YAML="  backend: redis+mariadb
  redis: {host: 127.0.0.1, port: $SHORTLINK_REDIS_PORT, connections: 8, timeout_ms: 1000}
  mariadb: {host: 127.0.0.1, port: $SHORTLINK_MARIADB_PORT, user: root, password: '', database: ferry_shortlink}"
}
