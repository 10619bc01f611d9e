#include "ferry/storage/redis_connection_pool.h"

#include <errno.h>
#include <hiredis.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/time.h>

#include <algorithm>
#include <chrono>
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

RedisConnectionPool::RedisConnectionPool(RedisOptions options)
    : options_(std::move(options)), address_(options_.host + ":" + std::to_string(options_.port)) {}

RedisConnectionPool::~RedisConnectionPool() {
  for (redisContext* context : idle_) redisFree(context);
}

Status RedisConnectionPool::Connect(redisContext** context) {
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

Status RedisConnectionPool::Acquire(redisContext** context) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(std::max(options_.timeout_ms, 1));
  std::unique_lock lock(mu_);
  for (;;) {
    while (!idle_.empty()) {
      redisContext* c = idle_.back();
      idle_.pop_back();
      if (IdleConnectionUsable(c)) {
        *context = c;
        return Status::Ok();
      }
      --open_;
      lock.unlock();
      redisFree(c);
      lock.lock();
    }
    if (open_ < std::max(options_.pool_size, 1)) {
      ++open_;
      lock.unlock();
      Status status = Connect(context);
      if (!status.ok()) {
        lock.lock();
        --open_;
        freed_.notify_one();
      }
      return status;
    }
    if (freed_.wait_until(lock, deadline) == std::cv_status::timeout && idle_.empty() &&
        open_ >= std::max(options_.pool_size, 1)) {
      return Status(StatusCode::UNAVAILABLE, "no Redis connection to " + address_ +
                                                 " came free within " +
                                                 std::to_string(options_.timeout_ms) + " ms");
    }
  }
}

void RedisConnectionPool::Return(redisContext* context) {
  {
    std::lock_guard lock(mu_);
    idle_.push_back(context);
  }
  freed_.notify_one();
}

void RedisConnectionPool::Discard(redisContext* context) {
  redisFree(context);
  {
    std::lock_guard lock(mu_);
    --open_;
  }
  freed_.notify_one();
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
  redisContext* context = nullptr;
  if (Status status = Acquire(&context); !status.ok()) return status;

  ScopedSigpipeBlock no_sigpipe;
  std::vector<const char*> argv;
  std::vector<size_t> argv_len;
  for (const auto& command : commands) {
    argv.clear();
    argv_len.clear();
    for (const std::string& arg : command) {
      argv.push_back(arg.data());
      argv_len.push_back(arg.size());
    }
    if (redisAppendCommandArgv(context, static_cast<int>(argv.size()), argv.data(),
                               argv_len.data()) != REDIS_OK) {
      // Out of memory. Earlier commands may sit in the output buffer, so the connection goes.
      Discard(context);
      return Status(StatusCode::INTERNAL, "cannot format a Redis command");
    }
  }
  for (size_t i = 0; i < commands.size(); ++i) {
    void* raw = nullptr;
    if (redisGetReply(context, &raw) != REDIS_OK || raw == nullptr) {
      Status status(StatusCode::UNAVAILABLE,
                    "Redis connection to " + address_ + " broke: " + ContextError(context));
      Discard(context);
      replies->clear();
      return status;
    }
    replies->emplace_back(static_cast<redisReply*>(raw));
  }
  Return(context);
  return Status::Ok();
}

}  // namespace ferry::storage
