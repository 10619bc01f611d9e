#include "storage/redis_link_cache.h"

#include <hiredis.h>

#include <charconv>
#include <vector>

namespace ferry::shortlink {

namespace {

using storage::RedisReplyPtr;

constexpr std::string_view kLinkPrefix = "shortlink:link:";

// KEYS[1] link key; ARGV: version, encoded entry, ttl ms, 1 when used up. Entries are
// "v<version>\t<expiry>\t<limit>\t<flags>\t<expired url>\t<url>", the flags disabled,
// purged, used up, deleted and "query not forwarded"; entries of earlier versions have two flags
// and no expired URL, or four flags (the query forwarded).
constexpr std::string_view kPutNewer = R"lua(
local current = redis.call('GET', KEYS[1])
if current then
  local v, flags = string.match(current, '^v(%d+)\t[^\t]*\t[^\t]*\t(%d+)\t')
  if v then
    local held, offered = tonumber(v), tonumber(ARGV[1])
    local held_exhausted = string.sub(flags, 3, 3) == '1'
    if held > offered or (held == offered and (held_exhausted or ARGV[4] ~= '1')) then
      return 0
    end
  end
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
)lua";

// KEYS[1] link key; ARGV[1] version. Deletes an absent entry or one of an older version.
constexpr std::string_view kDropOlder = R"lua(
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local v = string.match(current, '^v(%d+)\t')
if v and tonumber(v) >= tonumber(ARGV[1]) then return 0 end
redis.call('DEL', KEYS[1])
return 1
)lua";

std::string Encode(const CachedLink& l) {
  return "v" + std::to_string(l.version) + "\t" + std::to_string(l.expires_at_ms) + "\t" +
         std::to_string(l.max_visits) + "\t" + (l.disabled ? "1" : "0") + (l.purged ? "1" : "0") +
         (l.exhausted ? "1" : "0") + (l.deleted ? "1" : "0") + (l.forward_query ? "0" : "1") +
         "\t" + l.expired_url + "\t" + l.long_url;
}

bool Decode(std::string_view text, CachedLink* l) {
  std::vector<std::string_view> parts;
  for (int i = 0; i < 4; ++i) {
    const size_t tab = text.find('\t');
    if (tab == std::string_view::npos) return false;
    parts.push_back(text.substr(0, tab));
    text.remove_prefix(tab + 1);
  }
  auto number = [](std::string_view s, int64_t* v) {
    return std::from_chars(s.data(), s.data() + s.size(), *v).ec == std::errc();
  };
  if (parts[0].size() < 2 || parts[3].size() < 2 || parts[3].size() > 5 || parts[3].size() == 3) {
    return false;
  }
  if (!number(parts[0].substr(1), &l->version) || !number(parts[1], &l->expires_at_ms) ||
      !number(parts[2], &l->max_visits)) {
    return false;
  }
  l->disabled = parts[3][0] == '1';
  l->purged = parts[3][1] == '1';
  l->forward_query = parts[3].size() < 5 || parts[3][4] == '0';
  if (parts[3].size() >= 4) {
    l->exhausted = parts[3][2] == '1';
    l->deleted = parts[3][3] == '1';
    const size_t tab = text.find('\t');
    if (tab == std::string_view::npos) return false;
    l->expired_url.assign(text.substr(0, tab));
    text.remove_prefix(tab + 1);
  }
  l->long_url.assign(text);
  return true;
}

}  // namespace

RedisLinkCache::RedisLinkCache(storage::RedisConnectionPool* pool,
                               std::function<int64_t()> generation)
    : pool_(pool),
      scripts_(pool, {{"put_newer", kPutNewer}, {"drop_older", kDropOlder}}),
      generation_(std::move(generation)) {}

Status RedisLinkCache::Key(const std::string& code, std::string* key) const {
  const int64_t generation = generation_();
  if (generation == 0) return Status(StatusCode::UNAVAILABLE, "Redis generation not known yet");
  *key = std::string(kLinkPrefix) + "g" + std::to_string(generation) + ":" + code;
  return Status::Ok();
}

Status RedisLinkCache::Get(const std::string& code, CacheLookup* lookup, CachedLink* link) {
  std::string key;
  if (Status s = Key(code, &key); !s.ok()) return s;
  RedisReplyPtr reply;
  if (Status s = pool_->Run({"GET", key}, &reply); !s.ok()) return s;
  if (reply->type == REDIS_REPLY_NIL) {
    *lookup = CacheLookup::kMiss;
    return Status::Ok();
  }
  if (!storage::IsTextReply(reply.get())) return storage::ErrorReplyStatus("GET", reply.get());
  const std::string_view text = storage::ReplyText(reply.get());
  if (text == "-") {
    *lookup = CacheLookup::kAbsent;
    return Status::Ok();
  }
  if (!Decode(text, link)) return storage::MalformedReply("cached link " + code);
  *lookup = CacheLookup::kLink;
  return Status::Ok();
}

Status RedisLinkCache::PutNewer(const std::string& code, const CachedLink& link, int64_t ttl_ms) {
  std::string key;
  if (Status s = Key(code, &key); !s.ok()) return s;
  RedisReplyPtr reply;
  return scripts_.Eval(0, {key},
                       {std::to_string(link.version), Encode(link), std::to_string(ttl_ms),
                        link.exhausted ? "1" : "0"},
                       &reply);
}

Status RedisLinkCache::PutAbsent(const std::string& code, int64_t ttl_ms) {
  std::string key;
  if (Status s = Key(code, &key); !s.ok()) return s;
  RedisReplyPtr reply;
  return pool_->Run({"SET", key, "-", "PX", std::to_string(ttl_ms), "NX"}, &reply);
}

Status RedisLinkCache::DropOlder(const std::string& code, int64_t version) {
  std::string key;
  if (Status s = Key(code, &key); !s.ok()) return s;
  RedisReplyPtr reply;
  return scripts_.Eval(1, {key}, {std::to_string(version)}, &reply);
}

}  // namespace ferry::shortlink
