# The keys of the scripts' seckill sales. ferry_seckill_user_token <dir> writes fresh secrets to
# <dir>/user-token.secret and <dir>/operator.secret and sets SECKILL_FILTERS_YAML (the
# providers' `server.filters:` lines: `auth` for the operators, `user_token` for the buyers and
# the operators' roles, `authz` deciding who may call what, as the shipped configs do) and
# SECKILL_TOKEN_FLAGS (ferry-bench's --user-token-key and --operator-key for them).
ferry_seckill_user_token() {
  local dir="$1" secret operator
  secret="$(head -c 24 /dev/urandom | base64 | tr -d '/+=')"
  operator="$(head -c 24 /dev/urandom | base64 | tr -d '/+=')"
  printf '%s\n' "$secret" >"$dir/user-token.secret"
  printf '%s\n' "$operator" >"$dir/operator.secret"
  SECKILL_FILTERS_YAML="  filters:
    - name: auth
      keys: [{id: scripts-operator, secret: $operator}]
      exempt: [ferry.seckill.SeckillService/GetActivity, ferry.seckill.SeckillService/Admit,
               ferry.seckill.SeckillService/Purchase, ferry.seckill.SeckillService/GetResult,
               ferry.seckill.SeckillService/StartPayment, ferry.seckill.SeckillService/GetOrder,
               ferry.seckill.SeckillService/CancelOrder,
               ferry.seckill.SeckillService/NotifyPayment]
      optional: [ferry.seckill.SeckillService/CreateActivity, ferry.seckill.SeckillService/Preheat,
                 ferry.seckill.SeckillService/Refund, ferry.seckill.SeckillService/Reconcile,
                 ferry.seckill.SeckillService/Blacklist]
    - name: user_token
      keys: [{id: scripts, secret: $secret}]
      exempt: [ferry.seckill.SeckillService/GetActivity,
               ferry.seckill.SeckillService/NotifyPayment]
      optional: [ferry.seckill.SeckillService/CreateActivity, ferry.seckill.SeckillService/Preheat,
                 ferry.seckill.SeckillService/Refund, ferry.seckill.SeckillService/Reconcile,
                 ferry.seckill.SeckillService/Blacklist]
    - name: authz
      services: [ferry.seckill.SeckillService]
      rules:
        - methods: [ferry.seckill.SeckillService/CreateActivity,
                    ferry.seckill.SeckillService/Preheat, ferry.seckill.SeckillService/Refund,
                    ferry.seckill.SeckillService/Reconcile, ferry.seckill.SeckillService/Blacklist]
          allow: [{caller: any}, {role: operator}]
        - methods: [ferry.seckill.SeckillService/Admit, ferry.seckill.SeckillService/Purchase,
                    ferry.seckill.SeckillService/GetResult,
                    ferry.seckill.SeckillService/StartPayment,
                    ferry.seckill.SeckillService/GetOrder, ferry.seckill.SeckillService/CancelOrder]
          allow: [{user: any}]
        - methods: [ferry.seckill.SeckillService/GetActivity,
                    ferry.seckill.SeckillService/NotifyPayment]
          allow: [anonymous]"
  SECKILL_TOKEN_FLAGS=(--user-token-key "scripts:$dir/user-token.secret"
    --operator-key "scripts-operator:$dir/operator.secret")
}
