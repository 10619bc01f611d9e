#include "storage/redis_link_cache.h"

#include <hiredis.h>

#include <charconv>
#include <chrono>
#include <random>
#include <vector>

#include "storage/bloom_positions.h"

namespace ferry::shortlink {

namespace {

using storage::RedisReplyPtr;

constexpr std::string_view kLinkPrefix = "shortlink:link:";
constexpr std::string_view kBloomKey = "shortlink:bloom";
constexpr std::string_view kBloomLoadedKey = "shortlink:bloom:loaded";

// KEYS[1] link key; ARGV: version, encoded entry, ttl ms, 1 when used up. Entries are
// "v<version>\t<expiry>\t<limit>\t<flags>\t<expired url>\t<url>", the flags disabled,
// purged, used up and deleted; entries of an earlier version have two flags and no expired URL.
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

// KEYS[1] bitmap, KEYS[2] loaded flag; ARGV bit positions. -1: not loaded.
constexpr std::string_view kCheck = R"lua(
if redis.call('EXISTS', KEYS[2]) == 0 then return -1 end
for i = 1, #ARGV do
  if redis.call('GETBIT', KEYS[1], ARGV[i]) == 0 then return 0 end
end
return 1
)lua";

// KEYS[1] this load's token, KEYS[2] loaded flag. The token is gone when Redis lost its data
// during the load (a restart, a FLUSHALL): the bits set before are gone too, so the filter is
// not marked loaded.
constexpr std::string_view kMarkLoaded = R"lua(
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('SET', KEYS[2], '1')
redis.call('DEL', KEYS[1])
return 1
)lua";

constexpr std::string_view kAdd = R"lua(
for i = 1, #ARGV do redis.call('SETBIT', KEYS[1], ARGV[i], 1) end
return 1
)lua";

std::string Encode(const CachedLink& l) {
  return "v" + std::to_string(l.version) + "\t" + std::to_string(l.expires_at_ms) + "\t" +
         std::to_string(l.max_visits) + "\t" + (l.disabled ? "1" : "0") + (l.purged ? "1" : "0") +
         (l.exhausted ? "1" : "0") + (l.deleted ? "1" : "0") + "\t" + l.expired_url + "\t" +
         l.long_url;
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
  if (parts[0].size() < 2 || (parts[3].size() != 2 && parts[3].size() != 4)) return false;
  if (!number(parts[0].substr(1), &l->version) || !number(parts[1], &l->expires_at_ms) ||
      !number(parts[2], &l->max_visits)) {
    return false;
  }
  l->disabled = parts[3][0] == '1';
  l->purged = parts[3][1] == '1';
  if (parts[3].size() == 4) {
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

std::vector<std::string> PositionArgs(std::string_view code, uint64_t bits, int hashes) {
  std::vector<std::string> args;
  for (uint64_t p : BloomPositions(code, bits, hashes)) args.push_back(std::to_string(p));
  return args;
}

}  // namespace

RedisLinkCache::RedisLinkCache(storage::RedisConnectionPool* pool)
    : pool_(pool), scripts_(pool, {{"put_newer", kPutNewer}}) {}

Status RedisLinkCache::Get(const std::string& code, CacheLookup* lookup, CachedLink* link) {
  RedisReplyPtr reply;
  if (Status s = pool_->Run({"GET", std::string(kLinkPrefix) + code}, &reply); !s.ok()) return s;
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
  RedisReplyPtr reply;
  return scripts_.Eval(0, {std::string(kLinkPrefix) + code},
                       {std::to_string(link.version), Encode(link), std::to_string(ttl_ms),
                        link.exhausted ? "1" : "0"},
                       &reply);
}

Status RedisLinkCache::PutAbsent(const std::string& code, int64_t ttl_ms) {
  RedisReplyPtr reply;
  return pool_->Run(
      {"SET", std::string(kLinkPrefix) + code, "-", "PX", std::to_string(ttl_ms), "NX"}, &reply);
}

RedisCodeFilter::RedisCodeFilter(storage::RedisConnectionPool* pool, uint64_t bits, int hashes)
    : pool_(pool),
      scripts_(pool, {{"bloom_check", kCheck}, {"bloom_add", kAdd}, {"bloom_loaded", kMarkLoaded}}),
      bits_(bits),
      hashes_(hashes) {}

Status RedisCodeFilter::Check(const std::string& code, FilterAnswer* answer) {
  if (suspect_.load()) {
    *answer = FilterAnswer::kUnknown;
    return Status::Ok();
  }
  RedisReplyPtr reply;
  if (Status s = scripts_.Eval(0, {std::string(kBloomKey), std::string(kBloomLoadedKey)},
                               PositionArgs(code, bits_, hashes_), &reply);
      !s.ok()) {
    return s;
  }
  if (reply->type != REDIS_REPLY_INTEGER) return storage::MalformedReply("bloom_check");
  *answer = reply->integer < 0    ? FilterAnswer::kUnknown
            : reply->integer == 0 ? FilterAnswer::kNo
                                  : FilterAnswer::kMaybe;
  return Status::Ok();
}

Status RedisCodeFilter::Add(const std::string& code) {
  RedisReplyPtr reply;
  Status s = scripts_.Eval(1, {std::string(kBloomKey)}, PositionArgs(code, bits_, hashes_), &reply);
  if (!s.ok()) suspect_.store(true);
  return s;
}

Status RedisCodeFilter::LoadIfNeeded(
    const std::function<Status(const std::function<void(const std::string&)>&)>& for_each_code) {
  RedisReplyPtr reply;
  // Cleared first: an add failing during this load sets it again, and the next load repeats.
  if (suspect_.exchange(false)) {
    if (Status s = pool_->Run({"DEL", std::string(kBloomLoadedKey)}, &reply); !s.ok()) {
      suspect_.store(true);
      return s;
    }
  }
  Status loaded = LoadIfMissing(for_each_code);
  if (!loaded.ok() && loaded.code() == StatusCode::UNAVAILABLE) suspect_.store(true);
  return loaded;
}

Status RedisCodeFilter::LoadIfMissing(
    const std::function<Status(const std::function<void(const std::string&)>&)>& for_each_code) {
  RedisReplyPtr reply;
  if (Status s = pool_->Run({"EXISTS", std::string(kBloomLoadedKey)}, &reply); !s.ok()) return s;
  if (reply->type == REDIS_REPLY_INTEGER && reply->integer == 1) return Status::Ok();
  const std::string token =
      std::string(kBloomLoadedKey) + "ing:" + std::to_string(std::random_device()()) + "-" +
      std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
  if (Status s = pool_->Run({"SET", token, "1", "PX", "3600000"}, &reply); !s.ok()) return s;
  // Creates meanwhile add their own codes, so once every stored code is in, all are.
  std::vector<std::vector<std::string>> batch;
  Status failed = Status::Ok();
  auto flush = [&] {
    if (batch.empty() || !failed.ok()) return;
    std::vector<RedisReplyPtr> replies;
    failed = pool_->RunPipeline(batch, &replies);
    batch.clear();
  };
  Status s = for_each_code([&](const std::string& code) {
    for (uint64_t p : BloomPositions(code, bits_, hashes_)) {
      batch.push_back({"SETBIT", std::string(kBloomKey), std::to_string(p), "1"});
    }
    if (batch.size() >= 4096) flush();
  });
  flush();
  if (!s.ok()) return s;
  if (!failed.ok()) return failed;
  if (Status m = scripts_.Eval(2, {token, std::string(kBloomLoadedKey)}, {}, &reply); !m.ok()) {
    return m;
  }
  if (reply->type != REDIS_REPLY_INTEGER) return storage::MalformedReply("bloom_loaded");
  if (reply->integer == 0) {
    return Status(
        StatusCode::UNAVAILABLE,
        "Redis lost the Bloom filter while it was being loaded; it is loaded again later");
  }
  return Status::Ok();
}

}  // namespace ferry::shortlink
