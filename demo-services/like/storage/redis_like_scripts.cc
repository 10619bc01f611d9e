#include "storage/redis_like_scripts.h"

namespace ferry::like {

namespace {

// The membership and the count change together, and only on a real add or remove; the count
// never goes below zero. The version is the pair's previous version + 1, or Redis's clock in
// microseconds when later: after a Redis that lost its data is rebuilt from the database, a
// new change still outranks an event of the lost data that may yet reach the database.
// KEYS[6], when given, remembers the request id ('<liked><changed>', for ARGV[6] ms): the same
// id again answers 2 + what it answered first and changes nothing; with the other state, -4.
constexpr std::string_view kSetLikeSource = R"lua(
local layout = redis.call('GET', KEYS[5])
if not layout then return {-1, 0, 0} end
if layout ~= ARGV[5] then return {-3, 0, 0} end
local count = tonumber(redis.call('GET', KEYS[2]) or '0')
local previous = tonumber(redis.call('HGET', KEYS[3], ARGV[1]) or '0')
if KEYS[6] then
  local seen = redis.call('GET', KEYS[6])
  if seen then
    if string.sub(seen, 1, 1) ~= ARGV[2] then return {-4, 0, 0} end
    return {2 + tonumber(string.sub(seen, 2, 2)), count, previous}
  end
end
local want = ARGV[2] == '1'
local changed
if want then
  changed = redis.call('SADD', KEYS[1], ARGV[1])
else
  changed = redis.call('SREM', KEYS[1], ARGV[1])
end
local version = previous
if changed == 1 then
  if want then
    count = redis.call('INCR', KEYS[2])
  elseif count > 0 then
    count = redis.call('DECR', KEYS[2])
  end
  local now = redis.call('TIME')
  version = tonumber(now[1]) * 1000000 + tonumber(now[2])
  if previous + 1 > version then version = previous + 1 end
  local v = string.format('%.0f', version)
  redis.call('HSET', KEYS[3], ARGV[1], v)
  redis.call('XADD', KEYS[4], '*', 'c', ARGV[3], 'u', ARGV[1], 'l', ARGV[2], 'v', v, 'b', ARGV[4])
end
if KEYS[6] then redis.call('SET', KEYS[6], ARGV[2] .. changed, 'PX', ARGV[6]) end
return {changed, count, version}
)lua";

// A forced load keeps the higher of each pair's versions, so a repair never lowers a baseline.
constexpr std::string_view kLoadBucketSource = R"lua(
if ARGV[1] == '0' and redis.call('EXISTS', KEYS[4]) == 1 then return 0 end
local old = {}
local flat = redis.call('HGETALL', KEYS[3])
for i = 1, #flat, 2 do old[flat[i]] = tonumber(flat[i + 1]) end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
local count = 0
for i = 3, #ARGV, 3 do
  if ARGV[i + 1] == '1' then
    redis.call('SADD', KEYS[1], ARGV[i])
    count = count + 1
  end
  local v = tonumber(ARGV[i + 2])
  if old[ARGV[i]] ~= nil and old[ARGV[i]] > v then v = old[ARGV[i]] end
  old[ARGV[i]] = nil
  redis.call('HSET', KEYS[3], ARGV[i], string.format('%.0f', v))
end
for user, v in pairs(old) do redis.call('HSET', KEYS[3], user, string.format('%.0f', v)) end
redis.call('SET', KEYS[2], count)
redis.call('SET', KEYS[4], ARGV[2])
return 1
)lua";

// The database decided the version; Redis follows it, never counting a change twice.
constexpr std::string_view kApplyChangeSource = R"lua(
if redis.call('EXISTS', KEYS[4]) == 0 then return {-1, 0} end
local previous = tonumber(redis.call('HGET', KEYS[3], ARGV[1]) or '0')
local version = tonumber(ARGV[3])
if previous >= version then return {0, 0} end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
local changed
if ARGV[2] == '1' then
  changed = redis.call('SADD', KEYS[1], ARGV[1])
  if changed == 1 then redis.call('INCR', KEYS[2]) end
else
  changed = redis.call('SREM', KEYS[1], ARGV[1])
  if changed == 1 and tonumber(redis.call('GET', KEYS[2]) or '0') > 0 then
    redis.call('DECR', KEYS[2])
  end
end
return {1, changed}
)lua";

// Raising a content from n to 2n buckets, bucket k at a time: freezing k stops its writers
// (they wait), and is idempotent, so a split stopped half way is resumed by whoever meets it.
constexpr std::string_view kFreezeSource = R"lua(
local layout = redis.call('GET', KEYS[1])
if layout == ARGV[1] then
  redis.call('SET', KEYS[1], 'm:' .. ARGV[2])
  return 1
end
if layout == 'm:' .. ARGV[2] then return 1 end
return 0
)lua";

// The users that moved to bucket k + n leave bucket k, whose count becomes its set's size.
constexpr std::string_view kFinishSplitSource = R"lua(
for i = 2, #ARGV do
  redis.call('SREM', KEYS[1], ARGV[i])
  redis.call('HDEL', KEYS[3], ARGV[i])
end
redis.call('SET', KEYS[2], redis.call('SCARD', KEYS[1]))
redis.call('SET', KEYS[4], ARGV[1])
return 1
)lua";

}  // namespace

std::vector<storage::RedisScript> LikeScripts() {
  return {{.name = "set_like", .source = kSetLikeSource},
          {.name = "load_bucket", .source = kLoadBucketSource},
          {.name = "apply_change", .source = kApplyChangeSource},
          {.name = "freeze", .source = kFreezeSource},
          {.name = "finish_split", .source = kFinishSplitSource}};
}

}  // namespace ferry::like
