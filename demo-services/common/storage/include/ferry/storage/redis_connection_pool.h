#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
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
  // RunAsync: calls queued on the asynchronous connection at most; more are refused.
  int async_queue_limit = 4096;
};

// A bounded set of hiredis connections, safe to use from many threads, that batches: a caller
// queues its commands on a connection (in turn); if no other caller is talking to Redis on it,
// it becomes the connection's leader, sends everything queued there in one write and reads the
// replies, handing each caller its own; callers that queued meanwhile form the next batch,
// whose first caller leads it. So under load Redis reads many commands per read(2) and answers
// them in one write(2), and its event loop wakes once per batch instead of once per command,
// without a thread of the pool's own. A caller waits for the batches queued before its own.
// RunAsync adds one connection more, with its own thread, for callers that do not wait.
//
// Errors:
//   UNAVAILABLE  no connection could be made, or the connection broke (I/O error, timeout,
//                EOF) before the caller's replies were read: every caller of that batch gets
//                it. A broken connection is closed, never reused; whether a command that was
//                sent took effect is unknown, so callers retry only what is idempotent. A
//                connection that the server closed while it was idle is noticed before the
//                next batch and replaced, so a Redis restart costs no failed call.
// Error replies are not errors here: they come back as replies for the caller to judge.
// SIGPIPE is blocked on the leading thread while it writes (hiredis uses write(2)), so a
// server gone away never kills the process.
class RedisConnectionPool {
 public:
  explicit RedisConnectionPool(RedisOptions options);
  ~RedisConnectionPool();
  RedisConnectionPool(const RedisConnectionPool&) = delete;
  RedisConnectionPool& operator=(const RedisConnectionPool&) = delete;

  // Runs one command (binary-safe arguments).
  Status Run(const std::vector<std::string>& args, RedisReplyPtr* reply);
  // Sends the commands together on one connection and reads one reply per command.
  Status RunPipeline(const std::vector<std::vector<std::string>>& commands,
                     std::vector<RedisReplyPtr>* replies);

  // What RunAsync calls with the outcome (as RunPipeline's) and the replies.
  using AsyncDone = std::function<void(const Status& status, std::vector<RedisReplyPtr> replies)>;
  // RunPipeline without waiting: the commands join the pool's asynchronous connection, whose
  // own thread (started on first use) sends whatever is queued in one write, reads the
  // replies and calls each `done` there, in order. `done` must not block: a synchronous call
  // of this pool from it is fine (other connections), waiting for another RunAsync is not.
  // False, with `done` not called, when async_queue_limit calls are already queued: the
  // caller runs the commands synchronously instead (which is also its backpressure).
  bool RunAsync(std::vector<std::vector<std::string>> commands, AsyncDone done);

  // Commands sent on one connection, a reply each, as RunPipeline's; what a ConnectionCheck
  // talks to the server through.
  using DirectPipeline = std::function<Status(const std::vector<std::vector<std::string>>& commands,
                                              std::vector<RedisReplyPtr>* replies)>;
  // Runs on every connection the pool opens, before any caller's command goes over it, so that
  // a server which is not the one a service's data expects (restarted from an older copy, a
  // promoted replica: RedisGeneration) is noticed before anything is sent to it. A non-OK
  // status closes the connection and fails the batch's callers, whose commands were not sent.
  using ConnectionCheck = std::function<Status(const DirectPipeline& run)>;
  // Set before the pool's first call; not to be changed afterwards.
  void SetConnectionCheck(ConnectionCheck check) { check_ = std::move(check); }

  const RedisOptions& options() const { return options_; }
  // "host:port", for messages.
  const std::string& address() const { return address_; }

 private:
  struct Call;
  struct AsyncCall;
  struct Connection;
  struct AsyncLane;

  // The asynchronous connection's thread: exchanges what is queued until the pool goes.
  void RunLane();

  // Sends the batch's commands and reads their replies, reconnecting first if needed.
  void Exchange(Connection& connection, const std::vector<Call*>& batch);
  // Opens a connection, then runs the connection check on it.
  Status Connect(redisContext** context);
  Status Open(redisContext** context);

  const RedisOptions options_;
  const std::string address_;
  ConnectionCheck check_;
  std::vector<std::unique_ptr<Connection>> connections_;
  std::atomic<uint32_t> next_{0};  // round robin over connections_
  const std::unique_ptr<AsyncLane> lane_;
};

}  // namespace ferry::storage
