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
if #KEYS ~= 7 or #ARGV ~= 7 then
  return redis.error_reply('ERR seckill reserve: expected 7 keys and 7 arguments')
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

-- Every key is read before the first write, so that a key of the wrong type fails the script
-- (WRONGTYPE) with nothing written; the stream's append is the first write.
local marker = redis.call('GET', KEYS[2])
if not marker then
  return {'M', 0, ''}
end
if string.sub(marker, 1, 8) == 'loading:' then
  return {'L', 0, ''}
end
local generation = redis.call('HGET', KEYS[7], 'gen')
if not generation or marker ~= epoch .. '@' .. generation then
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
local accepted = redis.call('GET', KEYS[5]) or '0'
if not is_int(accepted) then
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
local seq = tonumber(accepted) + 1
redis.call('XADD', KEYS[6], '*', 'activity', activity, 'sku', sku, 'user', user,
           'request', request, 'order_no', order_no, 'reserved_ms', now_ms, 'epoch', epoch,
           'seq', seq)
redis.call('SET', KEYS[5], seq)
redis.call('DECR', KEYS[1])
redis.call('SADD', KEYS[3], user)
redis.call('HSET', KEYS[4], field, 'A:' .. order_no .. ':' .. now_ms .. ':' .. user)
return {'A', 0, order_no}
)lua";

constexpr std::string_view kFenceSource = FERRY_SECKILL_LUA_HELPERS R"lua(
if #KEYS ~= 1 or #ARGV ~= 3 then
  return redis.error_reply('ERR seckill fence: expected 1 key and 3 arguments')
end
local expected, epoch, now_ms = ARGV[1], ARGV[2], ARGV[3]
if not is_int(epoch) or string.sub(epoch, 1, 1) == '-' or epoch == '0' or
    not is_int(now_ms) then
  return redis.error_reply('ERR seckill fence: epoch must be a positive integer, now_ms one')
end
local marker = redis.call('GET', KEYS[1]) or ''
if marker ~= expected then
  return 0
end
-- The marker of the data the keys hold is carried along, so that a reload that fenced and then
-- died leaves the next one knowing whose reservations the keys hold.
local origin = marker
if string.sub(marker, 1, 8) == 'loading:' then
  origin = string.match(marker, '^[^|]*|(.*)$') or ''
end
redis.call('SET', KEYS[1], 'loading:' .. epoch .. ':' .. now_ms .. '|' .. origin)
return 1
)lua";

constexpr std::string_view kPreheatSource = FERRY_SECKILL_LUA_HELPERS R"lua(
if #KEYS ~= 10 or #ARGV ~= 4 then
  return redis.error_reply('ERR seckill preheat: expected 10 keys and 4 arguments')
end
local epoch, mode, stock, group = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
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
-- The kept keys and the staged sets are written to below: their types first.
local wants = {[4] = 'hash', [7] = 'stream', [9] = 'set', [10] = 'set'}
for i, want in pairs(wants) do
  local err = type_error('preheat', KEYS[i], want)
  if err then return err end
end
local marker = redis.call('GET', KEYS[2]) or ''
if string.sub(marker, 1, 9 + #epoch) ~= 'loading:' .. epoch .. ':' then
  return 1
end
local generation = redis.call('HGET', KEYS[8], 'gen')
if not generation then
  return redis.error_reply('NOGEN seckill preheat: ' .. KEYS[8] .. ' is missing')
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
if redis.call('EXISTS', KEYS[9]) == 1 then
  redis.call('RENAME', KEYS[9], KEYS[3])
end
if redis.call('EXISTS', KEYS[10]) == 1 then
  redis.call('RENAME', KEYS[10], KEYS[6])
end
redis.call('SET', KEYS[1], stock)
redis.call('SET', KEYS[2], epoch .. '@' .. generation)
return 0
)lua";

constexpr std::string_view kReleaseSource = FERRY_SECKILL_LUA_HELPERS R"lua(
if #KEYS ~= 4 or #ARGV ~= 2 then
  return redis.error_reply('ERR seckill release: expected 4 keys and 2 arguments')
end
if ARGV[1] == '' then
  return redis.error_reply('ERR seckill release: the release key must not be empty')
end
if not is_int(ARGV[2]) then
  return redis.error_reply('ERR seckill release: epoch must be an integer')
end
local generation = redis.call('HGET', KEYS[4], 'gen')
if not generation or redis.call('GET', KEYS[1]) ~= ARGV[2] .. '@' .. generation then
  return -1
end
local stock = redis.call('GET', KEYS[2])
if not stock then
  return -1
end
if not is_int(stock) then
  return redis.error_reply('ERR seckill release: ' .. KEYS[2] .. ' does not hold an integer')
end
-- SADD is the first write: a released key of the wrong type fails here, with nothing written.
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
local marker = redis.call('GET', KEYS[1])
if not marker or string.sub(marker, 1, #ARGV[1] + 1) ~= ARGV[1] .. '@' then
  return 0
end
redis.call('SET', KEYS[1], 'stale:' .. ARGV[1])
return 1
)lua";

#undef FERRY_SECKILL_LUA_HELPERS

}  // namespace

const storage::RedisScript kReserveScript{"reserve", kReserveSource};
const storage::RedisScript kFenceScript{"fence", kFenceSource};
const storage::RedisScript kPreheatScript{"preheat", kPreheatSource};
const storage::RedisScript kReleaseScript{"release", kReleaseSource};
const storage::RedisScript kDeadLetterScript{"dead_letter", kDeadLetterSource};
const storage::RedisScript kTrimScript{"trim", kTrimSource};
const storage::RedisScript kLeaseScript{"lease", kLeaseSource};
const storage::RedisScript kMarkStaleScript{"mark_stale", kMarkStaleSource};

}  // namespace ferry::seckill
