#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "ferry/codec/status.h"

struct redisReply;

namespace ferry::storage {

struct RedisReplyDeleter {
  void operator()(redisReply* reply) const;
};
using RedisReplyPtr = std::unique_ptr<redisReply, RedisReplyDeleter>;

// The bytes of a string, status or error reply.
std::string_view ReplyText(const redisReply* reply);
// A string or a status reply (what a command returns as text).
bool IsTextReply(const redisReply* reply);
// An error reply whose first word is `code`, e.g. "NOSCRIPT" or "NOGROUP".
bool IsErrorReply(const redisReply* reply, std::string_view code);
// An error reply saying Redis cannot answer for now (LOADING, BUSY, MASTERDOWN, READONLY,
// TRYAGAIN, CLUSTERDOWN): the same call may succeed later.
bool IsTransientErrorReply(const redisReply* reply);

// An integer reply, or a string holding one (GET, HGET, a script's text); nil is 0. False for
// anything else.
bool ReplyInt(const redisReply* reply, int64_t* value);

// The status for an error reply to `command`: UNAVAILABLE when it is transient, INTERNAL
// otherwise, with Redis's message.
Status ErrorReplyStatus(std::string_view command, const redisReply* reply);
// INTERNAL: the reply to `what` has a shape its caller does not expect.
Status MalformedReply(std::string_view what);

}  // namespace ferry::storage
