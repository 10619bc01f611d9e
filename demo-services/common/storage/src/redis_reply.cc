#include "ferry/storage/redis_reply.h"

#include <hiredis.h>

#include <charconv>
#include <string>

namespace ferry::storage {

void RedisReplyDeleter::operator()(redisReply* reply) const { freeReplyObject(reply); }

std::string_view ReplyText(const redisReply* reply) {
  return std::string_view(reply->str, reply->len);
}

bool IsTextReply(const redisReply* reply) {
  return reply != nullptr &&
         (reply->type == REDIS_REPLY_STRING || reply->type == REDIS_REPLY_STATUS);
}

bool IsErrorReply(const redisReply* reply, std::string_view code) {
  if (reply == nullptr || reply->type != REDIS_REPLY_ERROR) return false;
  const std::string_view text = ReplyText(reply);
  return text.substr(0, code.size()) == code &&
         (text.size() == code.size() || text[code.size()] == ' ');
}

bool IsTransientErrorReply(const redisReply* reply) {
  for (std::string_view code :
       {"LOADING", "BUSY", "MASTERDOWN", "READONLY", "TRYAGAIN", "CLUSTERDOWN"}) {
    if (IsErrorReply(reply, code)) return true;
  }
  return false;
}

bool ReplyInt(const redisReply* reply, int64_t* value) {
  if (reply == nullptr) return false;
  if (reply->type == REDIS_REPLY_INTEGER) {
    *value = reply->integer;
    return true;
  }
  if (reply->type == REDIS_REPLY_NIL) {
    *value = 0;
    return true;
  }
  if (!IsTextReply(reply)) return false;
  const std::string_view text = ReplyText(reply);
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *value);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

Status ErrorReplyStatus(std::string_view command, const redisReply* reply) {
  const StatusCode code =
      IsTransientErrorReply(reply) ? StatusCode::UNAVAILABLE : StatusCode::INTERNAL;
  return Status(code, "Redis " + std::string(command) + ": " + std::string(ReplyText(reply)));
}

Status MalformedReply(std::string_view what) {
  return Status(StatusCode::INTERNAL, "unexpected Redis reply to " + std::string(what));
}

}  // namespace ferry::storage
