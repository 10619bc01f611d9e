# A MariaDB server from Debian's `mariadb-server` package, on loopback, with its datadir,
# socket and log in a temporary directory; root logs in over TCP without a password. Its PID
# joins FERRY_PIDS so ferry_stop_all stops it. Source after common.sh.
#
# As root, mariadb-install-db and mariadbd refuse to run unless told `--user=root`.

# ferry_start_mariadb <port> <dir> <database>
ferry_start_mariadb() {
  local port="$1" dir="$2" database="$3"
  local user_args=() innodb_args=(--innodb-buffer-pool-size=64M --innodb-log-file-size=8M)
  [ "$(id -u)" -ne 0 ] || user_args=(--user=root)
  mkdir -p "$dir/tmp"
  if [ ! -d "$dir/data/mysql" ]; then
    if ! mariadb-install-db --no-defaults --datadir="$dir/data" \
      --auth-root-authentication-method=normal --skip-test-db --skip-name-resolve \
      "${innodb_args[@]}" "${user_args[@]}" >"$dir/install.log" 2>&1; then
      echo "mariadb-install-db failed; its log:" >&2
      cat "$dir/install.log" >&2
      return 1
    fi
  fi
  /usr/sbin/mariadbd --no-defaults --datadir="$dir/data" --port="$port" \
    --bind-address=127.0.0.1 --socket="$dir/mysqld.sock" --pid-file="$dir/mariadbd.pid" \
    --log-error="$dir/mariadbd.log" --tmpdir="$dir/tmp" --skip-log-bin --skip-name-resolve \
    --character-set-server=utf8mb4 --collation-server=utf8mb4_general_ci \
    "${innodb_args[@]}" "${user_args[@]}" >>"$dir/mariadbd.log" 2>&1 &
  FERRY_PIDS+=("$!")
  local pid=$! deadline=$((SECONDS + 60))
  local client=(mariadb --no-defaults --protocol=TCP -h 127.0.0.1 -P "$port" -u root)
  until "${client[@]}" -e 'SELECT 1' >/dev/null 2>&1; do
    if ! kill -0 "$pid" 2>/dev/null || [ $SECONDS -ge $deadline ]; then
      echo "MariaDB did not start on 127.0.0.1:$port; its log:" >&2
      cat "$dir/mariadbd.log" >&2
      return 1
    fi
    sleep 0.2
  done
  "${client[@]}" -e "CREATE DATABASE IF NOT EXISTS \`${database//\`/\`\`}\`"
  log "MariaDB ready on 127.0.0.1:$port, database $database (pid $pid)"
}
