#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "ferry/codec/status.h"
#include "ferry/storage/redis_reply.h"

struct redisContext;

namespace ferry::storage {

struct RedisOptions {
  std::string host = "127.0.0.1";
  int port = 6379;
  int pool_size = 8;      // connections open at most; each is made on first need
  int timeout_ms = 1000;  // connect timeout, and the read/write timeout of every command
};

// A bounded pool of blocking hiredis connections, safe to use from many threads: a caller takes
// a free connection (or opens a new one while fewer than pool_size are open, or waits up to
// timeout_ms for one to come back), runs its commands and returns it.
//
// Errors:
//   UNAVAILABLE  no connection could be made, none came free in time, or the connection broke
//                (I/O error, timeout, EOF). A broken connection is closed, never reused; whether
//                a command that was sent took effect is unknown, so callers retry only what is
//                idempotent. An idle connection that the server closed is noticed before use
//                and replaced, so a Redis restart costs no failed call.
// Error replies are not errors here: they come back as replies for the caller to judge.
// SIGPIPE is blocked on the calling thread while it writes to a connection (hiredis uses
// write(2)), so a server gone away never kills the process.
class RedisConnectionPool {
 public:
  explicit RedisConnectionPool(RedisOptions options);
  ~RedisConnectionPool();
  RedisConnectionPool(const RedisConnectionPool&) = delete;
  RedisConnectionPool& operator=(const RedisConnectionPool&) = delete;

  // Runs one command (binary-safe arguments).
  Status Run(const std::vector<std::string>& args, RedisReplyPtr* reply);
  // Sends the commands in one batch on one connection and reads one reply per command.
  Status RunPipeline(const std::vector<std::vector<std::string>>& commands,
                     std::vector<RedisReplyPtr>* replies);

  const RedisOptions& options() const { return options_; }
  // "host:port", for messages.
  const std::string& address() const { return address_; }

 private:
  Status Acquire(redisContext** context);
  void Return(redisContext* context);
  void Discard(redisContext* context);
  Status Connect(redisContext** context);

  const RedisOptions options_;
  const std::string address_;

  std::mutex mu_;
  std::condition_variable freed_;
  std::vector<redisContext*> idle_;  // guarded by mu_
  int open_ = 0;                     // guarded by mu_; idle and in use
};

}  // namespace ferry::storage
