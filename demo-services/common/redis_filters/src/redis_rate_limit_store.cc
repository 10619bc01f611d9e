#include "redis_rate_limit_store.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "ferry/storage/redis_reply.h"

namespace ferry::redis_filters {
namespace {

using plugins::TakeVerdict;

// KEYS[1]: the bucket. ARGV[1]: microseconds per token; ARGV[2]: burst × that. Returns 1 when
// a token was taken, 0 when the bucket is empty. Times are microseconds of Redis's clock
// (within a double's exact integers until the year 2255); the value is written with all its
// digits, since Lua's tostring keeps only 14.
constexpr std::string_view kTakeScript = R"lua(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2])
local full_at = tonumber(redis.call('GET', KEYS[1]) or '0')
if full_at < now then full_at = now end
local next_full_at = full_at + interval
if next_full_at - now > tolerance then return 0 end
local ttl_ms = math.ceil((next_full_at - now) / 1000) + 1
redis.call('SET', KEYS[1], string.format('%.17g', next_full_at), 'PX', ttl_ms)
return 1
)lua";

std::string Number(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

}  // namespace

void RedisRateLimitStore::Configure(config::ConfigReader& config) {
  ReadRedisEndpoint(config, &endpoint_);
  // After a failure, takes skip Redis for this long: an outage then costs no timeout per call.
  std::chrono::milliseconds retry_after{1000};
  config.Millis("retry_after_ms", 0, 3600000, &retry_after);
  gate_.emplace(retry_after);
  pool_ = std::make_unique<storage::RedisConnectionPool>(endpoint_.options);
  scripts_ = std::make_unique<storage::RedisScriptSet>(
      pool_.get(), std::vector<storage::RedisScript>{{"ratelimit take", kTakeScript}});
}

void RedisRateLimitStore::TryTake(std::span<const plugins::SharedTake> takes,
                                  std::span<TakeVerdict> verdicts) {
  std::fill(verdicts.begin(), verdicts.end(), TakeVerdict::kUnavailable);
  if (!gate_->open()) return;
  std::vector<storage::RedisScriptSet::Call> calls;
  calls.reserve(takes.size());
  for (const plugins::SharedTake& take : takes) {
    const double interval_us = 1e6 / take.rate;
    std::string key = endpoint_.key_namespace + ":ratelimit:{";
    key.append(take.limit).append(":").append(take.key).append("}");
    calls.push_back({.index = 0,
                     .keys = {std::move(key)},
                     .args = {Number(interval_us), Number(interval_us * take.burst)}});
  }
  std::vector<storage::RedisReplyPtr> replies;
  if (!scripts_->EvalPipeline(calls, &replies).ok() || replies.size() != takes.size()) {
    gate_->Failed();
    return;
  }
  for (size_t i = 0; i < replies.size(); ++i) {
    int64_t taken = 0;
    if (storage::ReplyInt(replies[i].get(), &taken)) {
      verdicts[i] = taken == 1 ? TakeVerdict::kTaken : TakeVerdict::kRefused;
    }
  }
}

}  // namespace ferry::redis_filters
