# The nginx peer, the wrk runs against it and the medians of scripts/bench-http.sh and
# scripts/bench-shortlink.sh. Source after common.sh; do not run it.

# ferry_start_nginx <dir> <port> <directive>...: nginx with one worker process on
# 127.0.0.1:<port>, answering every request with the `location /` directives given (one an
# argument), its files under <dir> and its log in <dir>.log; started by ferry_start (its PID in
# FERRY_PIDS).
ferry_start_nginx() {
  local dir="$1" port="$2"
  shift 2
  mkdir -p "$dir"
  {
    cat <<CONF
worker_processes 1;
daemon off;
pid $dir/nginx.pid;
error_log stderr notice;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $dir;
  proxy_temp_path $dir;
  fastcgi_temp_path $dir;
  uwsgi_temp_path $dir;
  scgi_temp_path $dir;
  keepalive_requests 100000000;
  server {
    listen 127.0.0.1:$port;
    location / {
CONF
    printf '      %s\n' "$@"
    printf '    }\n  }\n}\n'
  } >"$dir/nginx.conf"
  ferry_start nginx "start worker process" 20 "$dir.log" nginx -p "$dir" -c "$dir/nginx.conf"
}

# ferry_wrk_rps <conns> <seconds> <url> [wrk flags...]: requests per second of one keep-alive
# wrk run on one thread (non-2xx answers fail the run).
ferry_wrk_rps() {
  local conns="$1" seconds="$2" url="$3"
  shift 3
  local out
  out="$(wrk -t1 -c"$conns" -d"${seconds}s" "$@" "$url")"
  if grep -q "Non-2xx" <<<"$out"; then echo "wrk saw errors:" >&2; echo "$out" >&2; exit 1; fi
  awk '/^Requests\/sec:/ {printf "%d\n", $2}' <<<"$out"
}

# The median of the numbers on stdin, one a line.
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
# ratio <a> <b>: a / b to two places; n/a when b is 0.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
# pair_ratios <file_a> <file_b>: the median of the line-by-line ratios a / b.
pair_ratios() { paste "$1" "$2" | awk '$2 > 0 {printf "%.4f\n", $1 / $2}' | median; }
