#include "storage/redis_like_scripts.h"

namespace ferry::like {

namespace {

// The bucket's layout if it is loaded in its partition's generation, false if not, nil if the
// generation key is missing; and the generation.
#define LIKE_LAYOUT_OF                                                            \
  "local function layout_of(ready, generation)\n"                                 \
  "  local gen = redis.call('HGET', generation, 'gen')\n"                         \
  "  if not gen then return nil end\n"                                            \
  "  local marker = redis.call('GET', ready)\n"                                   \
  "  if not marker then return false, gen end\n"                                  \
  "  local at = string.find(marker, '@', 1, true)\n"                              \
  "  if not at or string.sub(marker, at + 1) ~= gen then return false, gen end\n" \
  "  return string.sub(marker, 1, at - 1), gen\n"                                 \
  "end\n"

// The membership and the count change together, and only on a real change; the count never
// goes below zero. The version is above the pair's previous one, the bucket's floor (what the
// database held when it was loaded, and dropped tombstones) and Redis's clock in microseconds,
// so a change outranks everything the record holds even when Redis's clock is behind.
constexpr std::string_view kSetLikeSource = LIKE_LAYOUT_OF R"lua(
local layout = layout_of(KEYS[4], KEYS[5])
if layout == nil then return {-6, 0, 0} end
if not layout then return {-1, 0, 0} end
if layout ~= ARGV[5] then return {-3, 0, 0, layout} end
local count = tonumber(redis.call('GET', KEYS[2]) or '0')
local previous = tonumber(redis.call('HGET', KEYS[3], ARGV[1]) or '0')
if KEYS[8] then
  local seen = redis.call('HGET', KEYS[8], ARGV[6]) or redis.call('HGET', KEYS[9], ARGV[6])
  if seen then
    if string.sub(seen, 1, 1) ~= ARGV[2] then return {-4, 0, 0} end
    return {2 + tonumber(string.sub(seen, 2, 2)), count, previous}
  end
end
local want = ARGV[2] == '1'
local changed = 0
local version = previous
if (redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1) ~= want then
  local backlog = tonumber(ARGV[8])
  if backlog > 0 and redis.call('XLEN', KEYS[6]) >= backlog then return {-5, 0, 0} end
  changed = 1
  if want then
    redis.call('SADD', KEYS[1], ARGV[1])
    count = redis.call('INCR', KEYS[2])
  else
    redis.call('SREM', KEYS[1], ARGV[1])
    if count > 0 then count = redis.call('DECR', KEYS[2]) end
  end
  local now = redis.call('TIME')
  version = tonumber(now[1]) * 1000000 + tonumber(now[2])
  local floor = tonumber(redis.call('HGET', KEYS[3], '') or '0')
  if previous + 1 > version then version = previous + 1 end
  if floor + 1 > version then version = floor + 1 end
  local v = string.format('%.0f', version)
  redis.call('HSET', KEYS[3], ARGV[1], v)
  if want then
    redis.call('ZREM', KEYS[7], ARGV[9])
  else
    redis.call('ZADD', KEYS[7], v, ARGV[9])
  end
  redis.call('XADD', KEYS[6], '*', 'c', ARGV[3], 'u', ARGV[1], 'l', ARGV[2], 'v', v, 'b', ARGV[4])
  redis.call('PERSIST', KEYS[4])
  redis.call('PERSIST', KEYS[3])
end
if KEYS[8] then
  redis.call('HSET', KEYS[8], ARGV[6], ARGV[2] .. changed)
  redis.call('PEXPIRE', KEYS[8], ARGV[7])
end
return {changed, count, version}
)lua";

// A bucket loaded from the record, merged with what Redis still holds of it (a copy of an
// earlier generation: its unpersisted changes are newer than the rows, the rows newer than its
// stale state). An unliked row leaves no tombstone: the record has it, and the floor keeps new
// versions above it.
constexpr std::string_view kLoadBucketSource = LIKE_LAYOUT_OF R"lua(
local layout, gen = layout_of(KEYS[4], KEYS[5])
if layout == nil then return -6 end
if layout then return 0 end
local floor = tonumber(redis.call('HGET', KEYS[3], '') or '0')
if tonumber(ARGV[3]) > floor then floor = tonumber(ARGV[3]) end
for i = 5, #ARGV, 3 do
  local user = ARGV[i]
  local have = tonumber(redis.call('HGET', KEYS[3], user) or '0')
  if tonumber(ARGV[i + 2]) >= have then
    if ARGV[i + 1] == '1' then
      redis.call('SADD', KEYS[1], user)
      redis.call('HSET', KEYS[3], user, ARGV[i + 2])
    else
      redis.call('SREM', KEYS[1], user)
      if have > 0 then redis.call('HDEL', KEYS[3], user) end
    end
    if have > 0 then redis.call('ZREM', KEYS[6], ARGV[4] .. user) end
  end
end
if floor > 0 then redis.call('HSET', KEYS[3], '', string.format('%.0f', floor)) end
local count = redis.call('SCARD', KEYS[1])
redis.call('SET', KEYS[4], ARGV[1] .. '@' .. gen)
if count == 0 and redis.call('HLEN', KEYS[3]) <= 1 and ARGV[2] ~= '0' then
  redis.call('DEL', KEYS[2])
  redis.call('PEXPIRE', KEYS[4], ARGV[2])
  if floor > 0 then redis.call('PEXPIRE', KEYS[3], ARGV[2]) end
else
  redis.call('SET', KEYS[2], count)
  redis.call('PERSIST', KEYS[3])
end
return 1
)lua";

// The record decided the version; Redis follows it, never counting a change twice.
constexpr std::string_view kApplyChangeSource = LIKE_LAYOUT_OF R"lua(
local layout = layout_of(KEYS[4], KEYS[5])
if layout == nil then return -6 end
if not layout then return -1 end
local have = tonumber(redis.call('HGET', KEYS[3], ARGV[1]) or '0')
local v = tonumber(ARGV[3])
if ARGV[5] ~= 'force' and (v < have or (v == have and ARGV[5] ~= 'tie')) then return 0 end
local want = ARGV[2] == '1'
local member = redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1
if want then
  redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
  redis.call('ZREM', KEYS[6], ARGV[4])
elseif have > 0 or member then
  redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
  redis.call('ZADD', KEYS[6], ARGV[3], ARGV[4])
end
if member ~= want then
  if want then
    redis.call('SADD', KEYS[1], ARGV[1])
    redis.call('INCR', KEYS[2])
  else
    redis.call('SREM', KEYS[1], ARGV[1])
    if tonumber(redis.call('GET', KEYS[2]) or '0') > 0 then redis.call('DECR', KEYS[2]) end
  end
  redis.call('PERSIST', KEYS[4])
  redis.call('PERSIST', KEYS[3])
end
return 1
)lua";

// Raising a content from n to 2n buckets, bucket k at a time: freezing k stops its writers
// (readers go on reading it in the old layout), and is idempotent, so a raise stopped half
// way is resumed by whoever meets it. The stream's last entry bounds k's changes not yet in the
// record, which the raiser lets the record catch up with before users move.
constexpr std::string_view kFreezeSource = LIKE_LAYOUT_OF R"lua(
local layout, gen = layout_of(KEYS[1], KEYS[2])
if layout == nil then return {-6} end
if not layout then return {-1} end
if layout == ARGV[2] then return {2} end
if layout == ARGV[1] or layout == 'm:' .. ARGV[2] then
  redis.call('SET', KEYS[1], 'm:' .. ARGV[2] .. '@' .. gen)
  local last = redis.call('XREVRANGE', KEYS[3], '+', '-', 'COUNT', 1)
  if #last == 0 then return {1, '0-0'} end
  return {1, last[1][1]}
end
return {0, layout}
)lua";

constexpr std::string_view kUnfreezeSource = LIKE_LAYOUT_OF R"lua(
local layout, gen = layout_of(KEYS[1], KEYS[2])
if layout ~= 'm:' .. ARGV[2] then return 0 end
redis.call('SET', KEYS[1], ARGV[1] .. '@' .. gen)
return 1
)lua";

// The moved users arrive with their versions (tombstones included: they may not be in the
// record yet) and request ids; only into a bucket not loaded yet, so a second raiser that read
// the source after the first finished (and so misses the moved users) never overwrites it.
constexpr std::string_view kSplitLoadSource = LIKE_LAYOUT_OF R"lua(
local layout, gen = layout_of(KEYS[4], KEYS[5])
if layout == nil then return -6 end
if layout then return 0 end
local floor = tonumber(redis.call('HGET', KEYS[3], '') or '0')
if tonumber(ARGV[2]) > floor then floor = tonumber(ARGV[2]) end
local i = 6
for _ = 1, tonumber(ARGV[5]) do
  local user = ARGV[i]
  local have = tonumber(redis.call('HGET', KEYS[3], user) or '0')
  if tonumber(ARGV[i + 2]) >= have then
    redis.call('HSET', KEYS[3], user, ARGV[i + 2])
    if ARGV[i + 1] == '1' then
      redis.call('SADD', KEYS[1], user)
      redis.call('ZREM', KEYS[6], ARGV[3] .. user)
    else
      redis.call('SREM', KEYS[1], user)
      redis.call('ZADD', KEYS[6], ARGV[i + 2], ARGV[3] .. user)
    end
  end
  i = i + 3
end
while i <= #ARGV do
  local window = ARGV[i] == 'now' and KEYS[7] or KEYS[8]
  redis.call('HSET', window, ARGV[i + 1], ARGV[i + 2])
  redis.call('PEXPIRE', window, ARGV[4])
  i = i + 3
end
if floor > 0 then redis.call('HSET', KEYS[3], '', string.format('%.0f', floor)) end
redis.call('PERSIST', KEYS[3])
redis.call('SET', KEYS[2], redis.call('SCARD', KEYS[1]))
redis.call('SET', KEYS[4], ARGV[1] .. '@' .. gen)
return 1
)lua";

constexpr std::string_view kFinishSplitSource = LIKE_LAYOUT_OF R"lua(
local layout, gen = layout_of(KEYS[4], KEYS[5])
if layout ~= 'm:' .. ARGV[1] then return 0 end
local users = tonumber(ARGV[2])
for i = 3, 2 + users do
  redis.call('SREM', KEYS[1], ARGV[i])
  redis.call('HDEL', KEYS[3], ARGV[i])
end
for i = 3 + users, #ARGV do
  redis.call('HDEL', KEYS[6], ARGV[i])
  redis.call('HDEL', KEYS[7], ARGV[i])
end
redis.call('SET', KEYS[2], redis.call('SCARD', KEYS[1]))
redis.call('SET', KEYS[4], ARGV[1] .. '@' .. gen)
return 1
)lua";

// A tombstone the record has (the caller passes only those older than what the partition's
// writer persisted) is dropped if the pair did not change since; its version becomes the
// bucket's floor, so new versions stay above it.
constexpr std::string_view kTrimTombstonesSource = R"lua(
local dropped = 0
for i = 1, #ARGV, 4 do
  local score = redis.call('ZSCORE', KEYS[1], ARGV[i + 3])
  if score and tonumber(score) == tonumber(ARGV[i + 2]) then
    local versions = KEYS[tonumber(ARGV[i])]
    if redis.call('HGET', versions, ARGV[i + 1]) == ARGV[i + 2] then
      redis.call('HDEL', versions, ARGV[i + 1])
      local floor = tonumber(redis.call('HGET', versions, '') or '0')
      if tonumber(ARGV[i + 2]) > floor then redis.call('HSET', versions, '', ARGV[i + 2]) end
      dropped = dropped + 1
    end
    redis.call('ZREM', KEYS[1], ARGV[i + 3])
  end
end
return dropped
)lua";

// One bucket as reconciliation compares it, with the stream's changes of it after the
// record's checkpoint, all read at one instant.
constexpr std::string_view kSnapshotSource = LIKE_LAYOUT_OF R"lua(
local layout, gen = layout_of(KEYS[4], KEYS[5])
if layout == nil then return {-6} end
local pending = {}
local entries = redis.call('XRANGE', KEYS[6], '(' .. ARGV[3], '+', 'COUNT', ARGV[4])
for _, entry in ipairs(entries) do
  local f = {}
  for j = 1, #entry[2], 2 do f[entry[2][j]] = entry[2][j + 1] end
  if f['c'] == ARGV[1] and f['b'] == ARGV[2] then
    table.insert(pending, f['u'])
    table.insert(pending, f['l'])
    table.insert(pending, f['v'])
  end
end
return {layout or '', gen, tonumber(redis.call('GET', KEYS[2]) or '0'),
        redis.call('SMEMBERS', KEYS[1]), redis.call('HGETALL', KEYS[3]), pending, #entries}
)lua";

constexpr std::string_view kReappendSource = LIKE_LAYOUT_OF R"lua(
if not layout_of(KEYS[4], KEYS[5]) then return 0 end
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
local liked = redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 1 and '1' or '0'
redis.call('XADD', KEYS[3], '*', 'c', ARGV[3], 'u', ARGV[1], 'l', liked, 'v', ARGV[2], 'b', ARGV[4])
return 1
)lua";

constexpr std::string_view kFixCountSource = LIKE_LAYOUT_OF R"lua(
if not layout_of(KEYS[3], KEYS[4]) then return -1 end
local old = tonumber(redis.call('GET', KEYS[2]) or '0')
local size = redis.call('SCARD', KEYS[1])
redis.call('SET', KEYS[2], size)
return {old, size}
)lua";

constexpr std::string_view kUnloadSource = R"lua(
for _, entry in ipairs(redis.call('XRANGE', KEYS[6], '(' .. ARGV[2], '+')) do
  for j = 1, #entry[2], 2 do
    if entry[2][j] == 'c' and entry[2][j + 1] == ARGV[1] then return 0 end
  end
end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
return 1
)lua";

constexpr std::string_view kRenewLeaseSource = R"lua(
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
)lua";

constexpr std::string_view kReleaseLeaseSource = R"lua(
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
)lua";

#undef LIKE_LAYOUT_OF

}  // namespace

std::vector<storage::RedisScript> LikeScripts() {
  return {{.name = "set_like", .source = kSetLikeSource},
          {.name = "load_bucket", .source = kLoadBucketSource},
          {.name = "apply_change", .source = kApplyChangeSource},
          {.name = "freeze", .source = kFreezeSource},
          {.name = "unfreeze", .source = kUnfreezeSource},
          {.name = "split_load", .source = kSplitLoadSource},
          {.name = "finish_split", .source = kFinishSplitSource},
          {.name = "trim_tombstones", .source = kTrimTombstonesSource},
          {.name = "snapshot", .source = kSnapshotSource},
          {.name = "reappend", .source = kReappendSource},
          {.name = "fix_count", .source = kFixCountSource},
          {.name = "unload", .source = kUnloadSource},
          {.name = "renew_lease", .source = kRenewLeaseSource},
          {.name = "release_lease", .source = kReleaseLeaseSource}};
}

}  // namespace ferry::like
