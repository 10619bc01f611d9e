# A standalone ZooKeeper from Debian's `zookeeper` package, on loopback, with a temporary data
# directory; its PID joins FERRY_PIDS so ferry_stop_all stops it. Source after common.sh.

# ferry_start_zookeeper <port> <dir>
ferry_start_zookeeper() {
  local port="$1" dir="$2"
  mkdir -p "$dir/data"
  cat >"$dir/zoo.cfg" <<CFG
tickTime=500
dataDir=$dir/data
clientPort=$port
clientPortAddress=127.0.0.1
admin.enableServer=false
4lw.commands.whitelist=ruok,srvr
CFG
  java -Xmx128m -XX:+UseSerialGC -XX:-UsePerfData \
    -cp /usr/share/java/zookeeper.jar:/usr/share/java/slf4j-simple.jar \
    org.apache.zookeeper.server.ZooKeeperServerMain "$dir/zoo.cfg" >"$dir/zookeeper.log" 2>&1 &
  FERRY_PIDS+=("$!")
  local pid=$! deadline=$((SECONDS + 60)) answer=""
  until [ "$answer" = "imok" ]; do
    if ! kill -0 "$pid" 2>/dev/null || [ $SECONDS -ge $deadline ]; then
      echo "ZooKeeper did not start on 127.0.0.1:$port; its log:" >&2
      cat "$dir/zookeeper.log" >&2
      return 1
    fi
    sleep 0.5
    answer=$( (exec 3<>"/dev/tcp/127.0.0.1/$port" && printf ruok >&3 && timeout 1 cat <&3) 2>/dev/null || true)
  done
  log "ZooKeeper ready on 127.0.0.1:$port (pid $pid)"
}
