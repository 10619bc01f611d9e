#include "ferry/storage/redis_persistence.h"

#include <hiredis.h>

#include <map>

#include "ferry/framework/logging.h"
#include "ferry/storage/redis_reply.h"

#include <spdlog/spdlog.h>

namespace ferry::storage {

namespace {

// CONFIG GET answers a flat array of name, value pairs (the pool speaks RESP2).
Status ConfigGet(RedisConnectionPool& pool, const std::vector<std::string>& names,
                 std::map<std::string, std::string>* values) {
  std::vector<std::string> command = {"CONFIG", "GET"};
  command.insert(command.end(), names.begin(), names.end());
  RedisReplyPtr reply;
  if (Status s = pool.Run(command, &reply); !s.ok()) return s;
  if (reply->type == REDIS_REPLY_ERROR) return ErrorReplyStatus("CONFIG GET", reply.get());
  if (reply->type != REDIS_REPLY_ARRAY || reply->elements % 2 != 0) {
    return MalformedReply("CONFIG GET");
  }
  for (size_t i = 0; i + 1 < reply->elements; i += 2) {
    if (!IsTextReply(reply->element[i]) || !IsTextReply(reply->element[i + 1])) {
      return MalformedReply("CONFIG GET");
    }
    (*values)[std::string(ReplyText(reply->element[i]))] =
        std::string(ReplyText(reply->element[i + 1]));
  }
  return Status::Ok();
}

}  // namespace

Status RedisPersistenceRisks(RedisConnectionPool& pool, std::string_view at_stake,
                             std::vector<std::string>* risks, std::string_view expiring_at_stake) {
  std::map<std::string, std::string> values;
  if (Status s = ConfigGet(pool, {"appendonly", "appendfsync", "maxmemory-policy"}, &values);
      !s.ok()) {
    return s;
  }
  risks->clear();
  const std::string what(at_stake);
  const std::string appendonly = values["appendonly"];
  const std::string appendfsync = values["appendfsync"];
  const std::string policy = values["maxmemory-policy"];
  if (appendonly != "yes") {
    risks->push_back("appendonly is '" + appendonly + "': " + what +
                     " are lost when Redis restarts (run it with appendonly yes, appendfsync "
                     "everysec)");
  } else if (appendfsync == "no") {
    risks->push_back(
        "appendfsync is 'no': the append-only file reaches the disk when the operating system "
        "decides, so a machine crash loses " +
        what + " (use appendfsync everysec)");
  }
  if (policy.starts_with("allkeys-")) {
    risks->push_back("maxmemory-policy is '" + policy +
                     "': at maxmemory Redis evicts keys without a TTL, which hold " + what +
                     " (use noeviction or a volatile-* policy)");
  } else if (policy.starts_with("volatile-") && !expiring_at_stake.empty()) {
    risks->push_back("maxmemory-policy is '" + policy +
                     "': at maxmemory Redis evicts keys with a TTL first, which hold " +
                     std::string(expiring_at_stake) + " (use noeviction)");
  }
  return Status::Ok();
}

Status CheckRedisPersistence(const BackendConfig& config, std::string_view service,
                             std::string_view at_stake, std::string_view expiring_at_stake) {
  const bool refuse = config.redis_persistence_check == "refuse";
  RedisConnectionPool pool({.host = config.redis_host,
                            .port = config.redis_port,
                            .pool_size = 1,
                            .timeout_ms = static_cast<int>(config.redis_timeout_ms)});
  std::vector<std::string> risks;
  const Status read = RedisPersistenceRisks(pool, at_stake, &risks, expiring_at_stake);
  if (read.code() == StatusCode::UNAVAILABLE) {
    Logger().warn("{}: Redis at {}: persistence settings not checked: {}", service, pool.address(),
                  read.ToString());
    return Status::Ok();
  }
  if (!read.ok()) {
    if (refuse) {
      return Status(StatusCode::FAILED_PRECONDITION,
                    "Redis at " + pool.address() + ": cannot read its persistence settings (" +
                        read.ToString() + "), and service.redis.persistence_check is refuse");
    }
    Logger().warn("{}: Redis at {}: cannot read its persistence settings: {}", service,
                  pool.address(), read.ToString());
    return Status::Ok();
  }
  if (risks.empty()) return Status::Ok();
  if (refuse) {
    std::string message = "Redis at " + pool.address() + ": ";
    for (size_t i = 0; i < risks.size(); ++i) message += (i > 0 ? "; " : "") + risks[i];
    return Status(StatusCode::FAILED_PRECONDITION,
                  message + " (service.redis.persistence_check: refuse; warn starts anyway)");
  }
  for (const std::string& risk : risks) {
    Logger().warn("{}: Redis at {}: {} (service.redis.persistence_check: warn)", service,
                  pool.address(), risk);
  }
  return Status::Ok();
}

}  // namespace ferry::storage
