# The simulated payment channel of the scripts' seckill sales (demo-services/paysim).
# ferry_paysim_start <bin dir> <dir> <notify>, where <notify> is either "address HOST:PORT" (one
# provider) or "registry URL" (every provider of ferry.seckill.SeckillService registered there),
# writes fresh keys to <dir>, starts paysim-server on a free port and sets
# SECKILL_PAYMENTS_YAML (the providers' `service.payments:` lines, channel `sim`) and
# PAYSIM_FLAGS (ferry-bench seckill's --pay-at and --paysim-operator-key).
ferry_paysim_start() {
  local bin="$1" dir="$2" how="$3" where="$4" notify registry=""
  mkdir -p "$dir"
  head -c 32 /dev/urandom | base64 | tr -d '/+=' >"$dir/merchant.key"
  head -c 24 /dev/urandom | base64 | tr -d '/+=' >"$dir/operator.secret"
  if [ "$how" = "registry" ]; then
    notify="notify_client: seckill"
    registry="registry: {url: '$where'}
clients:
  seckill: {service: ferry.seckill.SeckillService, timeout_ms: 3000}"
  else
    notify="notify_address: '$where'"
  fi
  PAYSIM_PORT="$(ferry_free_port)"
  cat >"$dir/paysim.yaml" <<YAML
log: {level: info}
$registry
server:
  listen: 127.0.0.1:$PAYSIM_PORT
  io_threads: 1
  business_pool: {threads: 4, queue_capacity: 4096}
  filters:
    - name: auth
      keys: [{id: scripts-paysim, secret: $(cat "$dir/operator.secret")}]
      exempt: [ferry.paysim.PaysimService/CreatePayment, ferry.paysim.PaysimService/QueryPayment,
               ferry.paysim.PaysimService/ClosePayment, ferry.paysim.PaysimService/RefundPayment,
               ferry.paysim.PaysimService/Checkout]
    - name: authz
      services: [ferry.paysim.PaysimService]
      rules:
        - methods: [ferry.paysim.PaysimService/ReplayNotification,
                    ferry.paysim.PaysimService/SendForgedAmount,
                    ferry.paysim.PaysimService/SetFaults,
                    ferry.paysim.PaysimService/ListNotifications]
          allow: [{caller: any}]
        - methods: [ferry.paysim.PaysimService/CreatePayment,
                    ferry.paysim.PaysimService/QueryPayment,
                    ferry.paysim.PaysimService/ClosePayment,
                    ferry.paysim.PaysimService/RefundPayment, ferry.paysim.PaysimService/Checkout]
          allow: [anonymous]
service:
  storage: {path: '$dir/paysim.db', connections: 4}
  delivery: {max_attempts: 8, initial_backoff_ms: 100, max_backoff_ms: 2000, timeout_ms: 3000}
  merchants:
    seckill: {key_file: '$dir/merchant.key', channel: sim, $notify}
YAML
  ferry_start "paysim-server" "paysim-server listening on" 30 "$dir/paysim.log" \
    "$bin/paysim-server" --config "$dir/paysim.yaml"
  SECKILL_PAYMENTS_YAML="  payments:
    channels:
      sim: {kind: simulated, address: '127.0.0.1:$PAYSIM_PORT', merchant_id: seckill,
            key_file: '$dir/merchant.key', timeout_ms: 2000}"
  PAYSIM_FLAGS=(--pay-at "127.0.0.1:$PAYSIM_PORT"
    --paysim-operator-key "scripts-paysim:$dir/operator.secret")
}
