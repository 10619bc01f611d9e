# The user tokens of the scripts' seckill sales. ferry_seckill_user_token <dir> writes a fresh
# secret to <dir>/user-token.secret and sets SECKILL_FILTERS_YAML (the providers'
# `server.filters:` lines, the `user_token` filter with that key and the admin methods exempt)
# and SECKILL_TOKEN_FLAGS (ferry-bench's --user-token-key for it).
ferry_seckill_user_token() {
  local dir="$1" secret
  secret="$(head -c 24 /dev/urandom | base64 | tr -d '/+=')"
  printf '%s\n' "$secret" >"$dir/user-token.secret"
  SECKILL_FILTERS_YAML="  filters:
    - name: user_token
      keys: [{id: scripts, secret: $secret}]
      exempt: [ferry.seckill.SeckillService/CreateActivity, ferry.seckill.SeckillService/Preheat,
               ferry.seckill.SeckillService/GetActivity, ferry.seckill.SeckillService/Refund,
               ferry.seckill.SeckillService/Reconcile]"
  SECKILL_TOKEN_FLAGS=(--user-token-key "scripts:$dir/user-token.secret")
}
