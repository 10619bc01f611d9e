#include "storage/redis_scripts.h"

namespace ferry::seckill {
namespace {

// Shared by every script: integer arguments in decimal (at most 19 digits; Redis's INCR/DECR
// check the int64 range themselves) and the key type check. A key that does not exist passes.
#define FERRY_SECKILL_LUA_HELPERS                                                       \
  "local function is_int(s)\n"                                                          \
  "  if type(s) ~= 'string' then return false end\n"                                    \
  "  if s == '0' then return true end\n"                                                \
  "  local digits = string.match(s, '^%-?([1-9]%d*)$')\n"                               \
  "  return digits ~= nil and #digits <= 19\n"                                          \
  "end\n"                                                                               \
  "local function type_error(script, key, want)\n"                                      \
  "  local t = redis.call('TYPE', key)['ok']\n"                                         \
  "  if t ~= 'none' and t ~= want then\n"                                               \
  "    return redis.error_reply('WRONGTYPE seckill ' .. script .. ': key ' .. key ..\n" \
  "                             ' holds a ' .. t .. ', expected a ' .. want)\n"         \
  "  end\n"                                                                             \
  "  return nil\n"                                                                      \
  "end\n"

constexpr std::string_view kReserveSource = FERRY_SECKILL_LUA_HELPERS R"lua(
if #KEYS ~= 6 or #ARGV ~= 7 then
  return redis.error_reply('ERR seckill reserve: expected 6 keys and 7 arguments')
end
local activity, sku, user, request, order_no, now_ms, epoch =
    ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7]
if not (is_int(activity) and is_int(sku) and is_int(order_no) and is_int(now_ms) and
        is_int(epoch)) then
  return redis.error_reply(
      'ERR seckill reserve: activity, sku, order_no, now_ms and epoch must be integers')
end
if user == '' or request == '' then
  return redis.error_reply('ERR seckill reserve: user and request id must not be empty')
end
local wants = {'string', 'string', 'set', 'hash', 'string', 'stream'}
for i = 1, 6 do
  local err = type_error('reserve', KEYS[i], wants[i])
  if err then return err end
end

local marker = redis.call('GET', KEYS[2])
if not marker then
  return {'M', 0, ''}
end
if marker ~= epoch then
  return {'E', 0, ''}
end

-- A request id is scoped by its user (the hash is the activity's): see RequestField.
local field = #user .. ':' .. user .. ':' .. request
local previous = redis.call('HGET', KEYS[4], field)
if previous then
  if previous == 'S' or previous == 'J' then
    return {previous, 1, ''}
  end
  local recorded = string.match(previous, '^A:(%-?%d+):')
  if recorded then
    return {'A', 1, recorded}
  end
  return redis.error_reply('ERR seckill reserve: request ' .. request ..
                           ' has an unreadable answer')
end

local stock = redis.call('GET', KEYS[1])
if not stock then
  return {'M', 0, ''}
end
if not is_int(stock) then
  return redis.error_reply('ERR seckill reserve: ' .. KEYS[1] .. ' does not hold an integer')
end
local accepted = redis.call('GET', KEYS[5])
if accepted and not is_int(accepted) then
  return redis.error_reply('ERR seckill reserve: ' .. KEYS[5] .. ' does not hold an integer')
end

if redis.call('SISMEMBER', KEYS[3], user) == 1 then
  redis.call('HSET', KEYS[4], field, 'J')
  return {'J', 0, ''}
end
if tonumber(stock) <= 0 then
  redis.call('HSET', KEYS[4], field, 'S')
  return {'S', 0, ''}
end
redis.call('DECR', KEYS[1])
redis.call('SADD', KEYS[3], user)
redis.call('HSET', KEYS[4], field, 'A:' .. order_no .. ':' .. now_ms .. ':' .. user)
local seq = redis.call('INCR', KEYS[5])
redis.call('XADD', KEYS[6], '*', 'activity', activity, 'sku', sku, 'user', user,
           'request', request, 'order_no', order_no, 'reserved_ms', now_ms, 'epoch', epoch,
           'seq', seq)
return {'A', 0, order_no}
)lua";

constexpr std::string_view kPreheatSource = FERRY_SECKILL_LUA_HELPERS R"lua(
if #KEYS ~= 7 or #ARGV < 6 then
  return redis.error_reply('ERR seckill preheat: expected 7 keys and at least 6 arguments')
end
local epoch, expected, mode, stock, group, buyer_count =
    ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
if not is_int(epoch) or string.sub(epoch, 1, 1) == '-' or epoch == '0' then
  return redis.error_reply('ERR seckill preheat: epoch must be a positive integer')
end
if mode ~= 'keep' and mode ~= 'wipe' then
  return redis.error_reply('ERR seckill preheat: mode must be keep or wipe')
end
if not is_int(stock) or string.sub(stock, 1, 1) == '-' then
  return redis.error_reply('ERR seckill preheat: stock must be a non-negative integer')
end
if group == '' then
  return redis.error_reply('ERR seckill preheat: the consumer group must not be empty')
end
if not is_int(buyer_count) or tonumber(buyer_count) < 0 or
    6 + tonumber(buyer_count) > #ARGV then
  return redis.error_reply('ERR seckill preheat: the buyer count does not match the arguments')
end
local wants = {'string', 'string', 'set', 'hash', 'string', 'set', 'stream'}
for i = 1, 7 do
  local err = type_error('preheat', KEYS[i], wants[i])
  if err then return err end
end
if (redis.call('GET', KEYS[2]) or '') ~= expected then
  return 1
end

if mode == 'wipe' then
  redis.call('DEL', KEYS[4], KEYS[5], KEYS[7])
end
redis.call('DEL', KEYS[3], KEYS[6])
local created = redis.pcall('XGROUP', 'CREATE', KEYS[7], group, '0', 'MKSTREAM')
if type(created) == 'table' and created['err'] and
    string.sub(created['err'], 1, 9) ~= 'BUSYGROUP' then
  return redis.error_reply(created['err'])
end
redis.call('SET', KEYS[1], stock)
local last_buyer = 6 + tonumber(buyer_count)
for first = 7, last_buyer, 1000 do
  redis.call('SADD', KEYS[3], unpack(ARGV, first, math.min(first + 999, last_buyer)))
end
for first = last_buyer + 1, #ARGV, 1000 do
  redis.call('SADD', KEYS[6], unpack(ARGV, first, math.min(first + 999, #ARGV)))
end
redis.call('SET', KEYS[2], epoch)
return 0
)lua";

constexpr std::string_view kReleaseSource = FERRY_SECKILL_LUA_HELPERS R"lua(
if #KEYS ~= 3 or #ARGV ~= 2 then
  return redis.error_reply('ERR seckill release: expected 3 keys and 2 arguments')
end
if ARGV[1] == '' then
  return redis.error_reply('ERR seckill release: the release key must not be empty')
end
if not is_int(ARGV[2]) then
  return redis.error_reply('ERR seckill release: epoch must be an integer')
end
local wants = {'string', 'string', 'set'}
for i = 1, 3 do
  local err = type_error('release', KEYS[i], wants[i])
  if err then return err end
end
if redis.call('GET', KEYS[1]) ~= ARGV[2] then
  return -1
end
local stock = redis.call('GET', KEYS[2])
if not stock then
  return -1
end
if not is_int(stock) then
  return redis.error_reply('ERR seckill release: ' .. KEYS[2] .. ' does not hold an integer')
end
if redis.call('SADD', KEYS[3], ARGV[1]) == 0 then
  return 0
end
redis.call('INCR', KEYS[2])
return 1
)lua";

constexpr std::string_view kDeadLetterSource = FERRY_SECKILL_LUA_HELPERS R"lua(
if #KEYS ~= 2 or #ARGV ~= 5 then
  return redis.error_reply('ERR seckill dead_letter: expected 2 keys and 5 arguments')
end
if ARGV[1] == '' or ARGV[2] == '' then
  return redis.error_reply('ERR seckill dead_letter: the group and the event id must not be empty')
end
if not is_int(ARGV[5]) or tonumber(ARGV[5]) < 1 then
  return redis.error_reply('ERR seckill dead_letter: max letters must be a positive integer')
end
for i = 1, 2 do
  local err = type_error('dead_letter', KEYS[i], 'stream')
  if err then return err end
end
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
local acked = redis.pcall('XACK', KEYS[1], ARGV[1], ARGV[2])
if type(acked) == 'table' and acked['err'] then
  if string.sub(acked['err'], 1, 7) == 'NOGROUP' then return 0 end
  return redis.error_reply(acked['err'])
end
if acked == 0 then
  return 0
end
local entry = redis.call('XRANGE', KEYS[1], ARGV[2], ARGV[2])
local payload = '[]'
if #entry == 1 and #entry[1][2] > 0 then
  payload = cjson.encode(entry[1][2])
end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[5], '*', 'reason', ARGV[3], 'detail', ARGV[4],
           'event_id', ARGV[2], 'payload', payload)
return 1
)lua";

constexpr std::string_view kTrimSource = FERRY_SECKILL_LUA_HELPERS R"lua(
if #KEYS ~= 1 or #ARGV ~= 0 then
  return redis.error_reply('ERR seckill trim: expected 1 key and no arguments')
end
local err = type_error('trim', KEYS[1], 'stream')
if err then return err end
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
-- Stream ids "<ms>-<seq>" compared as pairs of numbers (exact below 2^53).
local function split(id)
  local ms, seq = string.match(id, '^(%d+)%-(%d+)$')
  return tonumber(ms), tonumber(seq)
end
local function before(a, b)
  local am, as = split(a)
  local bm, bs = split(b)
  return am < bm or (am == bm and as < bs)
end
local keep = nil
for _, group in ipairs(redis.call('XINFO', 'GROUPS', KEYS[1])) do
  local name, delivered
  for i = 1, #group, 2 do
    if group[i] == 'name' then name = group[i + 1] end
    if group[i] == 'last-delivered-id' then delivered = group[i + 1] end
  end
  local summary = redis.call('XPENDING', KEYS[1], name)
  local oldest = delivered
  if summary[1] > 0 then oldest = summary[2] end
  if keep == nil or before(oldest, keep) then keep = oldest end
end
if keep == nil then
  return 0
end
return redis.call('XTRIM', KEYS[1], 'MINID', keep)
)lua";

constexpr std::string_view kLeaseSource = FERRY_SECKILL_LUA_HELPERS R"lua(
if #KEYS ~= 1 or #ARGV ~= 2 then
  return redis.error_reply('ERR seckill lease: expected 1 key and 2 arguments')
end
if ARGV[1] == '' then
  return redis.error_reply('ERR seckill lease: the holder must not be empty')
end
if not is_int(ARGV[2]) or tonumber(ARGV[2]) < 1 then
  return redis.error_reply('ERR seckill lease: ttl_ms must be a positive integer')
end
local err = type_error('lease', KEYS[1], 'string')
if err then return err end
local current = redis.call('GET', KEYS[1])
if current and current ~= ARGV[1] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
)lua";

constexpr std::string_view kMarkStaleSource = FERRY_SECKILL_LUA_HELPERS R"lua(
if #KEYS ~= 1 or #ARGV ~= 1 or not is_int(ARGV[1]) then
  return redis.error_reply('ERR seckill mark_stale: expected 1 key and an integer epoch')
end
local err = type_error('mark_stale', KEYS[1], 'string')
if err then return err end
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
redis.call('SET', KEYS[1], 'stale:' .. ARGV[1])
return 1
)lua";

#undef FERRY_SECKILL_LUA_HELPERS

}  // namespace

const storage::RedisScript kReserveScript{"reserve", kReserveSource};
const storage::RedisScript kPreheatScript{"preheat", kPreheatSource};
const storage::RedisScript kReleaseScript{"release", kReleaseSource};
const storage::RedisScript kDeadLetterScript{"dead_letter", kDeadLetterSource};
const storage::RedisScript kTrimScript{"trim", kTrimSource};
const storage::RedisScript kLeaseScript{"lease", kLeaseSource};
const storage::RedisScript kMarkStaleScript{"mark_stale", kMarkStaleSource};

}  // namespace ferry::seckill
