#include "storage/redis_admission_line.h"

#include <string>

#include <hiredis/hiredis.h>

#include "ferry/storage/redis_reply.h"
#include "storage/redis_keys.h"

namespace ferry::seckill {
namespace {

// KEYS: admitted, waiting, waiting_seen, tickets.
// ARGV: user, now_ms, capacity, admission_ttl_ms, wait_ttl_ms, max_waiting.
// Returns {admitted (1/0), expires_ms, position}.
constexpr storage::RedisScript kAskScript{"admission ask", R"lua(
local user = ARGV[1]
local now = tonumber(ARGV[2])
local capacity = tonumber(ARGV[3])
local ttl = tonumber(ARGV[4])
local wait_ttl = tonumber(ARGV[5])
local max_waiting = tonumber(ARGV[6])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local gone = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now - wait_ttl, 'LIMIT', 0, 100)
if #gone > 0 then
  redis.call('ZREM', KEYS[2], unpack(gone))
  redis.call('ZREM', KEYS[3], unpack(gone))
end
local expires = redis.call('ZSCORE', KEYS[1], user)
if expires then return {1, tonumber(expires), 0} end
local rank = redis.call('ZRANK', KEYS[2], user)
if not rank then
  local waiting = redis.call('ZCARD', KEYS[2])
  if waiting >= max_waiting then return {0, 0, waiting} end
  redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[4]), user)
  rank = redis.call('ZRANK', KEYS[2], user)
end
if rank < capacity - redis.call('ZCARD', KEYS[1]) then
  redis.call('ZREM', KEYS[2], user)
  redis.call('ZREM', KEYS[3], user)
  redis.call('ZADD', KEYS[1], now + ttl, user)
  redis.call('PEXPIRE', KEYS[1], ttl)
  return {1, now + ttl, 0}
end
redis.call('ZADD', KEYS[3], now, user)
for i = 2, 4 do redis.call('PEXPIRE', KEYS[i], wait_ttl) end
return {0, 0, rank}
)lua"};

}  // namespace

RedisAdmissionLine::RedisAdmissionLine(storage::RedisOptions options)
    : pool_(std::move(options)), scripts_(&pool_, {kAskScript}) {}

Status RedisAdmissionLine::Ask(const AdmissionAsk& ask, AdmissionTurn* turn) {
  if (ask.user.empty()) return Status(StatusCode::INVALID_ARGUMENT, "admission: no user");
  const RedisActivityKeys keys = RedisActivityKeys::For(ask.activity_id, ask.sku_id);
  storage::RedisReplyPtr reply;
  if (Status s = scripts_.Eval(0, {keys.admitted, keys.waiting, keys.waiting_seen, keys.tickets},
                               {ask.user, std::to_string(ask.now_ms), std::to_string(ask.capacity),
                                std::to_string(ask.admission_ttl_ms),
                                std::to_string(ask.wait_ttl_ms), std::to_string(ask.max_waiting)},
                               &reply);
      !s.ok()) {
    return s;
  }
  if (reply->type != REDIS_REPLY_ARRAY || reply->elements != 3) {
    return Status(StatusCode::INTERNAL, "admission ask: unexpected reply");
  }
  for (size_t i = 0; i < 3; ++i) {
    if (reply->element[i]->type != REDIS_REPLY_INTEGER) {
      return Status(StatusCode::INTERNAL, "admission ask: unexpected reply");
    }
  }
  turn->admitted = reply->element[0]->integer == 1;
  turn->expires_ms = reply->element[1]->integer;
  turn->position = reply->element[2]->integer;
  return Status::Ok();
}

Status RedisAdmissionLine::Leave(int64_t activity_id, int64_t sku_id, const std::string& user) {
  const RedisActivityKeys keys = RedisActivityKeys::For(activity_id, sku_id);
  storage::RedisReplyPtr reply;
  if (Status s = pool_.Run({"ZREM", keys.admitted, user}, &reply); !s.ok()) return s;
  if (reply->type == REDIS_REPLY_ERROR) return storage::ErrorReplyStatus("ZREM", reply.get());
  return Status::Ok();
}

}  // namespace ferry::seckill
