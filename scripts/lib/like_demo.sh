# The like part of scripts/demo.sh. ferry_like_demo <backend> <build dir> <run dir>: one
# like-server (redis+mariadb, redis-first, on a Redis and a MariaDB of its own; or embedded,
# SQLite) and a short `ferry-bench like` against it, which checks after the load that every
# count it wrote equals the number of users whose last acknowledged state is liked. Sets
# LIKE_CHECK_LINE, LIKE_RESULT_LINE and LIKE_RC (the bench's exit code); stops what it started.
ferry_like_demo() {
  local backend="$1" build_dir="$2" dir="$3/like" backend_yaml text secret operator_secret
  mkdir -p "$dir"
  if [ "$backend" = "redis+mariadb" ]; then
    local redis_port mariadb_port
    redis_port="$(ferry_free_port)"
    ferry_start_redis "$redis_port" "$dir/redis" --appendonly yes --appendfsync everysec
    mariadb_port="$(ferry_free_port)"
    ferry_start_mariadb "$mariadb_port" "$dir/mariadb" ferry_like
    backend_yaml="  backend: redis+mariadb
  write_mode: redis-first
  redis: {host: 127.0.0.1, port: $redis_port, connections: 8}
  mariadb: {host: 127.0.0.1, port: $mariadb_port, user: root, password: '', database: ferry_like}
  event_writer: {threads: 2}"
    text="Redis on 127.0.0.1:$redis_port (buckets, streams), MariaDB on 127.0.0.1:$mariadb_port (record)"
  else
    backend_yaml="  backend: embedded
  embedded: {path: $dir/like.db, connections: 4}"
    text="SQLite at $dir/like.db"
  fi
  secret="$(head -c 24 /dev/urandom | base64 | tr -d '/+=')"
  printf '%s\n' "$secret" >"$dir/user-token.secret"
  operator_secret="$(head -c 24 /dev/urandom | base64 | tr -d '/+=')"
  printf '%s\n' "$operator_secret" >"$dir/operator.secret"
  # Operators (the bench's Reconcile) sign with an auth key of their own, and authz decides who
  # may call what, as the shipped configs do. No ratelimit filter: the bench's users call far
  # faster than a person would.
  cat >"$dir/like-server.yaml" <<YAML
log: {level: info}
server:
  listen: 127.0.0.1:0
  io_threads: 1
  business_pool: {threads: 4, queue_capacity: 4096}
  filters:
    - name: auth
      keys: [{id: operators, secret: $operator_secret}]
      exempt: [ferry.like.LikeService/SetLike, ferry.like.LikeService/GetCounts,
               ferry.like.LikeService/HasLiked, ferry.like.LikeService/ListLikers,
               ferry.like.LikeService/ListLiked]
      optional: [ferry.like.LikeService/Reconcile, ferry.like.LikeService/RedriveDeadLetters,
                 ferry.like.LikeService/ListChanges, ferry.like.LikeService/DeleteUser]
    - name: user_token
      keys: [{id: scripts, secret: $secret}]
      exempt: [ferry.like.LikeService/GetCounts, ferry.like.LikeService/ListLikers]
      optional: [ferry.like.LikeService/Reconcile, ferry.like.LikeService/RedriveDeadLetters,
                 ferry.like.LikeService/ListChanges, ferry.like.LikeService/DeleteUser]
    - name: authz
      services: [ferry.like.LikeService]
      rules:
        - methods: [ferry.like.LikeService/Reconcile, ferry.like.LikeService/RedriveDeadLetters,
                    ferry.like.LikeService/ListChanges, ferry.like.LikeService/DeleteUser]
          allow: [{caller: any}, {role: operator}]
        - methods: [ferry.like.LikeService/SetLike, ferry.like.LikeService/HasLiked,
                    ferry.like.LikeService/ListLiked]
          allow: [{user: any}]
        - methods: [ferry.like.LikeService/GetCounts, ferry.like.LikeService/ListLikers]
          allow: [anonymous]
service:
$backend_yaml
  count_cache_ms: 1000
YAML
  ferry_start "like-server ($backend)" "like-server listening on" 60 "$dir/like-server.log" \
    "$build_dir"/bin/like-server --config "$dir/like-server.yaml" --port "$(ferry_free_port)"
  local target
  target="$(grep -o 'listening on [0-9.:]*' "$dir/like-server.log" | head -n 1 | cut -d' ' -f3)"
  log "ferry-bench like on the $backend backend ($text): 20000 calls, half GetCounts, 2000 users, 500 contents by Zipf 0.99, 10% on the hottest"
  LIKE_RC=0
  "$build_dir"/bin/ferry-bench like --target "$target" --conns 2 --depth 16 --calls 20000 \
    --get-ratio 0.5 --users 2000 --contents 500 --zipf 0.99 --hot-share 0.1 \
    --duration-limit 60 --settle-timeout 30 --user-token-key "scripts:$dir/user-token.secret" \
    --operator-key "operators:$dir/operator.secret" \
    >"$dir/like.out" 2>&1 || LIKE_RC=$?
  cat "$dir/like.out"
  LIKE_CHECK_LINE="$(grep '^check:' "$dir/like.out" || echo "no check line (exit $LIKE_RC)")"
  LIKE_RESULT_LINE="$(grep '^RESULT' "$dir/like.out" || echo "no RESULT line")"
  log "stopping like-server${redis_port:+, Redis and MariaDB}"
  ferry_stop_all
}
