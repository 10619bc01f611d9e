#include "ferry/storage/redis_connection_pool.h"

#include <errno.h>
#include <hiredis.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/time.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>

namespace ferry::storage {
namespace {

// Blocks SIGPIPE on this thread for its lifetime and swallows a SIGPIPE raised meanwhile (a
// write to a socket the peer closed), unless one was already pending before.
class ScopedSigpipeBlock {
 public:
  ScopedSigpipeBlock() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_, &previous_mask_);
    was_pending_ = Pending();
  }
  ~ScopedSigpipeBlock() {
    if (!was_pending_ && Pending()) {
      const timespec no_wait{};
      while (sigtimedwait(&pipe_, nullptr, &no_wait) == -1 && errno == EINTR) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &previous_mask_, nullptr);
  }
  ScopedSigpipeBlock(const ScopedSigpipeBlock&) = delete;
  ScopedSigpipeBlock& operator=(const ScopedSigpipeBlock&) = delete;

 private:
  bool Pending() const {
    sigset_t pending;
    sigemptyset(&pending);
    return sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1;
  }

  sigset_t pipe_;
  sigset_t previous_mask_;
  bool was_pending_ = false;
};

timeval ToTimeval(int timeout_ms) {
  const int ms = std::max(timeout_ms, 1);
  return timeval{.tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000};
}

// An idle connection has nothing to read; if it is readable, the server closed it (EOF or
// reset) or sent something out of turn, and it is unusable either way.
bool IdleConnectionUsable(redisContext* context) {
  if (context->err != 0) return false;
  pollfd p{.fd = context->fd, .events = POLLIN, .revents = 0};
  int n;
  do {
    n = poll(&p, 1, 0);
  } while (n == -1 && errno == EINTR);
  return n == 0;
}

std::string ContextError(redisContext* context) {
  std::string message = context->errstr;
  if (message.empty()) message = "connection error " + std::to_string(context->err);
  return message;
}

}  // namespace

// One caller's commands, queued on a connection until a leader has exchanged them.
struct RedisConnectionPool::Call {
  const std::vector<std::vector<std::string>>* commands;
  std::vector<RedisReplyPtr>* replies;
  Status status;
  bool done = false;  // status and replies are final
  bool lead = false;  // this caller leads the next batch
  std::condition_variable wake;
};

// A call without a caller waiting: it owns its commands and replies.
struct RedisConnectionPool::AsyncCall : Call {
  std::vector<std::vector<std::string>> owned_commands;
  std::vector<RedisReplyPtr> owned_replies;
  AsyncDone on_done;
};

struct RedisConnectionPool::Connection {
  std::mutex mu;
  std::deque<Call*> queued;  // guarded by mu
  bool busy = false;         // guarded by mu: a leader is exchanging a batch
  // Only the leader touches it; null until first needed and after it broke.
  redisContext* context = nullptr;
};

// The asynchronous connection: its thread is the leader of every batch.
struct RedisConnectionPool::AsyncLane {
  Connection connection;  // its mu guards the fields below too
  std::condition_variable wake;
  bool stopping = false;
  std::thread thread;
};

RedisConnectionPool::RedisConnectionPool(RedisOptions options)
    : options_(std::move(options)),
      address_(options_.host + ":" + std::to_string(options_.port)),
      lane_(std::make_unique<AsyncLane>()) {
  for (int i = 0; i < std::max(options_.pool_size, 1); ++i) {
    connections_.push_back(std::make_unique<Connection>());
  }
}

RedisConnectionPool::~RedisConnectionPool() {
  {
    std::lock_guard lock(lane_->connection.mu);
    lane_->stopping = true;
  }
  lane_->wake.notify_one();
  if (lane_->thread.joinable()) lane_->thread.join();  // after the queue is exchanged
  if (lane_->connection.context != nullptr) redisFree(lane_->connection.context);
  for (auto& connection : connections_) {
    if (connection->context != nullptr) redisFree(connection->context);
  }
}

Status RedisConnectionPool::Open(redisContext** context) {
  const timeval timeout = ToTimeval(options_.timeout_ms);
  redisContext* c = redisConnectWithTimeout(options_.host.c_str(), options_.port, timeout);
  if (c == nullptr) {
    return Status(StatusCode::UNAVAILABLE,
                  "cannot connect to Redis at " + address_ + ": out of memory");
  }
  if (c->err != 0) {
    Status status(StatusCode::UNAVAILABLE,
                  "cannot connect to Redis at " + address_ + ": " + ContextError(c));
    redisFree(c);
    return status;
  }
  if (redisSetTimeout(c, timeout) != REDIS_OK) {
    Status status(StatusCode::UNAVAILABLE, "cannot set timeouts on the Redis connection to " +
                                               address_ + ": " + ContextError(c));
    redisFree(c);
    return status;
  }
  redisEnableKeepAlive(c);
  *context = c;
  return Status::Ok();
}

Status RedisConnectionPool::Run(const std::vector<std::string>& args, RedisReplyPtr* reply) {
  std::vector<RedisReplyPtr> replies;
  Status status = RunPipeline({args}, &replies);
  if (status.ok()) *reply = std::move(replies.front());
  return status;
}

Status RedisConnectionPool::RunPipeline(const std::vector<std::vector<std::string>>& commands,
                                        std::vector<RedisReplyPtr>* replies) {
  replies->clear();
  Connection& connection =
      *connections_[next_.fetch_add(1, std::memory_order_relaxed) % connections_.size()];
  Call call{.commands = &commands, .replies = replies};
  std::unique_lock lock(connection.mu);
  connection.queued.push_back(&call);
  if (connection.busy) {
    call.wake.wait(lock, [&] { return call.done || call.lead; });
    if (call.done) return call.status;
  }
  connection.busy = true;
  std::vector<Call*> batch(connection.queued.begin(), connection.queued.end());
  connection.queued.clear();
  lock.unlock();
  Exchange(connection, batch);
  lock.lock();
  for (Call* c : batch) {
    c->done = true;
    if (c != &call) c->wake.notify_one();
  }
  if (connection.queued.empty()) {
    connection.busy = false;
  } else {
    connection.queued.front()->lead = true;
    connection.queued.front()->wake.notify_one();
  }
  return call.status;
}

bool RedisConnectionPool::RunAsync(std::vector<std::vector<std::string>> commands, AsyncDone done) {
  AsyncLane& lane = *lane_;
  auto call = std::make_unique<AsyncCall>();
  call->owned_commands = std::move(commands);
  call->commands = &call->owned_commands;
  call->replies = &call->owned_replies;
  call->on_done = std::move(done);
  {
    std::lock_guard lock(lane.connection.mu);
    if (lane.connection.queued.size() >=
        static_cast<size_t>(std::max(options_.async_queue_limit, 1))) {
      return false;
    }
    if (!lane.thread.joinable()) lane.thread = std::thread([this] { RunLane(); });
    lane.connection.queued.push_back(call.release());
  }
  lane.wake.notify_one();
  return true;
}

void RedisConnectionPool::RunLane() {
  AsyncLane& lane = *lane_;
  std::unique_lock lock(lane.connection.mu);
  while (true) {
    lane.wake.wait(lock, [&] { return lane.stopping || !lane.connection.queued.empty(); });
    if (lane.connection.queued.empty()) return;  // stopping, and nothing left
    std::vector<Call*> batch(lane.connection.queued.begin(), lane.connection.queued.end());
    lane.connection.queued.clear();
    lock.unlock();
    Exchange(lane.connection, batch);
    for (Call* c : batch) {
      std::unique_ptr<AsyncCall> call(static_cast<AsyncCall*>(c));
      call->on_done(call->status, std::move(call->owned_replies));
    }
    lock.lock();
  }
}

namespace {

// Sends every command of `calls` in one write and reads one reply per command into its call.
// False, with *failed_at the first call left without its replies, when the connection broke.
bool SendAndRead(redisContext* context,
                 const std::vector<const std::vector<std::vector<std::string>>*>& calls,
                 const std::vector<std::vector<RedisReplyPtr>*>& replies, size_t* failed_at,
                 bool* format_error) {
  ScopedSigpipeBlock no_sigpipe;
  std::vector<const char*> argv;
  std::vector<size_t> argv_len;
  for (const auto* commands : calls) {
    for (const auto& command : *commands) {
      argv.clear();
      argv_len.clear();
      for (const std::string& arg : command) {
        argv.push_back(arg.data());
        argv_len.push_back(arg.size());
      }
      if (redisAppendCommandArgv(context, static_cast<int>(argv.size()), argv.data(),
                                 argv_len.data()) != REDIS_OK) {
        *format_error = true;
        *failed_at = 0;
        return false;
      }
    }
  }
  for (size_t i = 0; i < calls.size(); ++i) {
    replies[i]->reserve(calls[i]->size());
    for (size_t n = 0; n < calls[i]->size(); ++n) {
      void* raw = nullptr;
      if (redisGetReply(context, &raw) != REDIS_OK || raw == nullptr) {
        *failed_at = i;
        return false;
      }
      replies[i]->emplace_back(static_cast<redisReply*>(raw));
    }
  }
  return true;
}

}  // namespace

Status RedisConnectionPool::Connect(redisContext** context) {
  if (Status s = Open(context); !s.ok()) return s;
  if (!check_) return Status::Ok();
  redisContext* c = *context;
  Status broke;
  const DirectPipeline run = [this, c, &broke](
                                 const std::vector<std::vector<std::string>>& commands,
                                 std::vector<RedisReplyPtr>* replies) {
    replies->clear();
    size_t failed_at = 0;
    bool format_error = false;
    if (!SendAndRead(c, {&commands}, {replies}, &failed_at, &format_error)) {
      broke =
          Status(format_error ? StatusCode::INTERNAL : StatusCode::UNAVAILABLE,
                 format_error ? "cannot format a Redis command"
                              : "Redis connection to " + address_ + " broke: " + ContextError(c));
      return broke;
    }
    return Status::Ok();
  };
  Status checked = check_(run);
  if (checked.ok() && !broke.ok()) checked = broke;
  if (!checked.ok()) {
    redisFree(c);
    *context = nullptr;
  }
  return checked;
}

void RedisConnectionPool::Exchange(Connection& connection, const std::vector<Call*>& batch) {
  auto fail = [&](size_t from, const Status& status) {
    for (size_t i = from; i < batch.size(); ++i) {
      batch[i]->status = status;
      batch[i]->replies->clear();
    }
  };
  redisContext*& context = connection.context;
  if (context != nullptr && !IdleConnectionUsable(context)) {
    redisFree(context);
    context = nullptr;
  }
  if (context == nullptr) {
    if (Status s = Connect(&context); !s.ok()) return fail(0, s);
  }
  std::vector<const std::vector<std::vector<std::string>>*> calls;
  std::vector<std::vector<RedisReplyPtr>*> replies;
  for (Call* call : batch) {
    calls.push_back(call->commands);
    replies.push_back(call->replies);
  }
  size_t failed_at = 0;
  bool format_error = false;
  if (!SendAndRead(context, calls, replies, &failed_at, &format_error)) {
    // Out of memory formatting, or the connection broke: earlier commands may sit in the
    // output buffer or be unanswered, so the connection goes either way.
    const Status status =
        format_error ? Status(StatusCode::INTERNAL, "cannot format a Redis command")
                     : Status(StatusCode::UNAVAILABLE, "Redis connection to " + address_ +
                                                           " broke: " + ContextError(context));
    redisFree(context);
    context = nullptr;
    for (size_t i = 0; i < failed_at; ++i) batch[i]->status = Status::Ok();
    return fail(failed_at, status);
  }
  for (Call* call : batch) call->status = Status::Ok();
}

}  // namespace ferry::storage
