#include "ferry/storage/redis_generation.h"

#include <hiredis.h>

#include <algorithm>
#include <random>
#include <string_view>

#include "ferry/storage/redis_reply.h"

namespace ferry::storage {

namespace {

// The key's generation, made anew (ARGV[2]) unless the key was made for this server (ARGV[1]).
// EVAL, not a loaded script: it runs on connections the pool has not handed out yet.
constexpr std::string_view kCheckSource = R"lua(
if redis.call('HGET', KEYS[1], 'id') == ARGV[1] then
  return {0, redis.call('HGET', KEYS[1], 'gen')}
end
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'gen', ARGV[2])
return {1, ARGV[2]}
)lua";

// Random, not counted: a Redis that lost everything (its keys included) must not hand out a
// generation its older copies used.
int64_t NewGeneration() {
  static thread_local std::mt19937_64 random{std::random_device{}()};
  return std::uniform_int_distribution<int64_t>(1, INT64_MAX)(random);
}

// "name:value" of an INFO section's line.
std::string_view InfoField(std::string_view info, std::string_view name) {
  size_t at = 0;
  while (at < info.size()) {
    size_t end = info.find('\n', at);
    if (end == std::string_view::npos) end = info.size();
    std::string_view line = info.substr(at, end - at);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.size() > name.size() && line.substr(0, name.size()) == name &&
        line[name.size()] == ':') {
      return line.substr(name.size() + 1);
    }
    at = end + 1;
  }
  return {};
}

// The check's own pipelines go to the pool, which may open a connection and so check again on
// the same thread: that inner check is the outer one's work.
thread_local bool checking = false;

}  // namespace

Status ReadRedisServerIdentity(const RedisConnectionPool::DirectPipeline& run,
                               RedisServerIdentity* out) {
  std::vector<RedisReplyPtr> replies;
  if (Status s = run({{"INFO", "server", "replication"}}, &replies); !s.ok()) return s;
  const redisReply* r = replies.empty() ? nullptr : replies[0].get();
  if (r != nullptr && r->type == REDIS_REPLY_ERROR) return ErrorReplyStatus("INFO", r);
  if (!IsTextReply(r)) return MalformedReply("INFO");
  const std::string_view info = ReplyText(r);
  out->run_id = std::string(InfoField(info, "run_id"));
  out->replication_id = std::string(InfoField(info, "master_replid"));
  if (out->run_id.empty()) return MalformedReply("INFO (no run_id)");
  return Status::Ok();
}

RedisGeneration::RedisGeneration(std::vector<std::string> keys) : keys_(std::move(keys)) {}

bool RedisGeneration::AddKey(const std::string& key) {
  std::lock_guard lock(mu_);
  if (std::find(keys_.begin(), keys_.end(), key) != keys_.end()) return false;
  keys_.push_back(key);
  return true;
}

void RedisGeneration::RemoveKey(const std::string& key) {
  std::lock_guard lock(mu_);
  std::erase(keys_, key);
}

std::vector<std::string> RedisGeneration::keys() const {
  std::lock_guard lock(mu_);
  return keys_;
}

RedisServerIdentity RedisGeneration::identity() const {
  std::lock_guard lock(mu_);
  return last_;
}

void RedisGeneration::Watch(RedisConnectionPool* pool) {
  pool->SetConnectionCheck([this](const RedisConnectionPool::DirectPipeline& run) {
    if (checking) return Status::Ok();
    return CheckOn(run);
  });
}

Status RedisGeneration::Check(RedisConnectionPool& pool) {
  return CheckOn(
      [&pool](const std::vector<std::vector<std::string>>& commands,
              std::vector<RedisReplyPtr>* replies) { return pool.RunPipeline(commands, replies); });
}

Status RedisGeneration::CheckOn(const RedisConnectionPool::DirectPipeline& run) {
  // No lock while talking to Redis: a check through the pool waits for the pool's other
  // callers, whose connection may be opening, and so checking, meanwhile. The script makes
  // concurrent checks agree on the server; only the bookkeeping below is serialised.
  checking = true;
  struct Reset {
    ~Reset() { checking = false; }
  } reset;
  RedisServerIdentity identity;
  if (Status s = ReadRedisServerIdentity(run, &identity); !s.ok()) return s;
  std::vector<std::vector<std::string>> commands;
  for (const std::string& key : keys()) {
    commands.push_back({"EVAL", std::string(kCheckSource), "1", key, identity.ToString(),
                        std::to_string(NewGeneration())});
  }
  std::vector<RedisReplyPtr> replies;
  if (!commands.empty()) {
    if (Status s = run(commands, &replies); !s.ok()) return s;
  }
  int64_t first = 0;
  bool made = false;  // some key got a new generation: another server, or its keys were lost
  for (size_t i = 0; i < replies.size(); ++i) {
    const redisReply* r = replies[i].get();
    if (r->type == REDIS_REPLY_ERROR) return ErrorReplyStatus("generation check", r);
    if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 ||
        r->element[0]->type != REDIS_REPLY_INTEGER || !IsTextReply(r->element[1])) {
      return MalformedReply("generation check");
    }
    made = made || r->element[0]->integer == 1;
    if (i == 0) first = std::stoll(std::string(ReplyText(r->element[1])));
  }
  std::lock_guard lock(mu_);
  const bool first_check = last_.run_id.empty();
  const bool moved = !(identity == last_);
  last_ = identity;
  if (!replies.empty()) generation_.store(first);
  if (first_check || (!moved && !made)) return Status::Ok();
  changes_.fetch_add(1);
  if (listener_) listener_(identity, first);
  return Status::Ok();
}

}  // namespace ferry::storage
