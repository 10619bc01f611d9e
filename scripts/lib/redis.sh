# A Redis server from Debian's `redis-server` package, on loopback, with a temporary data
# directory and nothing persisted unless the extra options say so; its PID joins FERRY_PIDS so
# ferry_stop_all stops it. Source after common.sh.

# ferry_start_redis <port> <dir> [redis-server options, e.g. --appendonly yes]
# Started again on the same directory, it loads what it persisted there.
ferry_start_redis() {
  local port="$1" dir="$2"
  shift 2
  mkdir -p "$dir/data"
  redis-server --port "$port" --bind 127.0.0.1 --daemonize no --dir "$dir/data" \
    --save "" --appendonly no --logfile "$dir/redis.log" "$@" >>"$dir/redis.out" 2>&1 &
  FERRY_PIDS+=("$!")
  local pid=$! deadline=$((SECONDS + 30)) answer=""
  until [ "$answer" = "+PONG" ]; do
    if ! kill -0 "$pid" 2>/dev/null || [ $SECONDS -ge $deadline ]; then
      echo "Redis did not start on 127.0.0.1:$port; its log:" >&2
      cat "$dir/redis.out" "$dir/redis.log" >&2 2>/dev/null || true
      return 1
    fi
    sleep 0.1
    answer=$( (exec 3<>"/dev/tcp/127.0.0.1/$port" && printf 'PING\r\n' >&3 &&
      timeout 1 head -n1 <&3) 2>/dev/null | tr -d '\r' || true)
  done
  log "Redis ready on 127.0.0.1:$port (pid $pid)"
}
