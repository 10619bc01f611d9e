#include "redis_test_server.h"

#include <gtest/gtest.h>
#include <hiredis.h>

namespace ferry::storage::testing {

testsupport::RedisServer* SharedRedis() {
  static testsupport::RedisServer server;  // stopped at exit
  const ::testing::AssertionResult started = server.Start();
  EXPECT_TRUE(started);
  if (!started) return nullptr;
  RedisConnectionPool pool(OptionsFor(server, 1));
  EXPECT_EQ(RunText(pool, {"FLUSHALL"}), "OK");
  EXPECT_EQ(RunText(pool, {"SCRIPT", "FLUSH"}), "OK");
  return &server;
}

RedisOptions OptionsFor(const testsupport::RedisServer& server, int pool_size, int timeout_ms) {
  return RedisOptions{.host = server.host(),
                      .port = server.port(),
                      .pool_size = pool_size,
                      .timeout_ms = timeout_ms};
}

std::string ReplyAsText(const RedisReplyPtr& reply) {
  switch (reply->type) {
    case REDIS_REPLY_STRING:
    case REDIS_REPLY_STATUS:
      return std::string(ReplyText(reply.get()));
    case REDIS_REPLY_INTEGER:
      return std::to_string(reply->integer);
    case REDIS_REPLY_NIL:
      return "(nil)";
    case REDIS_REPLY_ERROR:
      return "ERR:" + std::string(ReplyText(reply.get()));
    default:
      return "(reply of type " + std::to_string(reply->type) + ")";
  }
}

std::string RunText(RedisConnectionPool& pool, const std::vector<std::string>& args) {
  RedisReplyPtr reply;
  if (Status s = pool.Run(args, &reply); !s.ok()) return "FAILED:" + s.ToString();
  return ReplyAsText(reply);
}

std::string InfoField(RedisConnectionPool& pool, const std::string& section,
                      const std::string& field) {
  const std::string info = RunText(pool, {"INFO", section});
  const std::string prefix = field + ":";
  const size_t at = info.find("\r\n" + prefix);
  if (at == std::string::npos) return "(no " + field + ")";
  const size_t start = at + 2 + prefix.size();
  return info.substr(start, info.find("\r\n", start) - start);
}

}  // namespace ferry::storage::testing
