#include "storage/redis_persistence.h"

#include <hiredis.h>

#include <map>

#include "ferry/storage/redis_reply.h"

namespace ferry::seckill {

namespace {

// CONFIG GET answers a flat array of name, value pairs (the pool speaks RESP2).
Status ConfigGet(storage::RedisConnectionPool& pool, const std::vector<std::string>& names,
                 std::map<std::string, std::string>* values) {
  std::vector<std::string> command = {"CONFIG", "GET"};
  command.insert(command.end(), names.begin(), names.end());
  storage::RedisReplyPtr reply;
  if (Status s = pool.Run(command, &reply); !s.ok()) return s;
  if (reply->type == REDIS_REPLY_ERROR) return storage::ErrorReplyStatus("CONFIG GET", reply.get());
  if (reply->type != REDIS_REPLY_ARRAY || reply->elements % 2 != 0) {
    return storage::MalformedReply("CONFIG GET");
  }
  for (size_t i = 0; i + 1 < reply->elements; i += 2) {
    if (!storage::IsTextReply(reply->element[i]) || !storage::IsTextReply(reply->element[i + 1])) {
      return storage::MalformedReply("CONFIG GET");
    }
    (*values)[std::string(storage::ReplyText(reply->element[i]))] =
        std::string(storage::ReplyText(reply->element[i + 1]));
  }
  return Status::Ok();
}

}  // namespace

Status CheckRedisPersistence(storage::RedisConnectionPool& pool, std::vector<std::string>* risks) {
  std::map<std::string, std::string> values;
  if (Status s = ConfigGet(pool, {"appendonly", "appendfsync", "maxmemory-policy"}, &values);
      !s.ok()) {
    return s;
  }
  risks->clear();
  const std::string appendonly = values["appendonly"];
  const std::string appendfsync = values["appendfsync"];
  const std::string policy = values["maxmemory-policy"];
  if (appendonly != "yes") {
    risks->push_back("appendonly is '" + appendonly +
                     "': reservations not yet written as orders are lost when Redis restarts "
                     "(run it with appendonly yes, appendfsync everysec)");
  } else if (appendfsync == "no") {
    risks->push_back(
        "appendfsync is 'no': the append-only file reaches the disk when the operating system "
        "decides, so a machine crash loses reservations (use appendfsync everysec)");
  }
  if (policy.starts_with("allkeys-")) {
    risks->push_back("maxmemory-policy is '" + policy +
                     "': at maxmemory Redis evicts the reservation keys, which have no TTL (use "
                     "noeviction or a volatile-* policy)");
  }
  return Status::Ok();
}

}  // namespace ferry::seckill
