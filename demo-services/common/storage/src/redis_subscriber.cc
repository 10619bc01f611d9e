#include "ferry/storage/redis_subscriber.h"

#include <errno.h>
#include <hiredis.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string_view>

#include "ferry/storage/redis_reply.h"

namespace ferry::storage {
namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct ContextFree {
  void operator()(redisContext* c) const { redisFree(c); }
};
using ContextPtr = std::unique_ptr<redisContext, ContextFree>;

std::string ContextError(const redisContext* c) {
  return c->errstr[0] != '\0' ? std::string(c->errstr)
                              : "connection error " + std::to_string(c->err);
}

// Waits up to `timeout_ms` for `fd` (ignored when -1) to be readable or the wake fd to be
// signalled; false when woken (a stop).
bool WaitReadable(int fd, int wake_fd, int timeout_ms, bool* readable) {
  pollfd fds[2] = {{.fd = wake_fd, .events = POLLIN, .revents = 0},
                   {.fd = fd, .events = POLLIN, .revents = 0}};
  int n;
  do {
    n = poll(fds, fd >= 0 ? 2 : 1, std::max(timeout_ms, 0));
  } while (n == -1 && errno == EINTR);
  if (fds[0].revents != 0) return false;
  *readable = fd >= 0 && fds[1].revents != 0;
  return true;
}

bool Append(redisContext* c, const std::vector<std::string>& args) {
  std::vector<const char*> argv;
  std::vector<size_t> lengths;
  for (const std::string& arg : args) {
    argv.push_back(arg.data());
    lengths.push_back(arg.size());
  }
  return redisAppendCommandArgv(c, static_cast<int>(argv.size()), argv.data(), lengths.data()) ==
         REDIS_OK;
}

// The blocking socket takes the few bytes of a SUBSCRIBE or PING at once.
bool Flush(redisContext* c) {
  int done = 0;
  while (done == 0) {
    if (redisBufferWrite(c, &done) != REDIS_OK) return false;
  }
  return true;
}

std::string_view ElementText(const redisReply* reply, size_t i) {
  return reply->type == REDIS_REPLY_ARRAY && i < reply->elements ? ReplyText(reply->element[i])
                                                                 : std::string_view();
}

}  // namespace

RedisSubscriber::RedisSubscriber(RedisSubscriberOptions options, OnMessage on_message,
                                 OnSubscribed on_subscribed)
    : options_(std::move(options)),
      on_message_(std::move(on_message)),
      on_subscribed_(std::move(on_subscribed)) {}

Status RedisSubscriber::last_error() const {
  std::lock_guard lock(error_mu_);
  return last_error_;
}

void RedisSubscriber::Run(const std::stop_token& stop) {
  const int wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd < 0) {
    std::lock_guard lock(error_mu_);
    last_error_ = Status(StatusCode::INTERNAL, "eventfd failed");
    return;
  }
  {
    std::stop_callback wake(stop, [wake_fd] {
      const uint64_t one = 1;
      (void)!write(wake_fd, &one, sizeof(one));
    });
    int backoff_ms = options_.backoff_first_ms;
    while (!stop.stop_requested()) {
      if (RunSession(stop, wake_fd)) backoff_ms = options_.backoff_first_ms;
      if (stop.stop_requested()) break;
      bool readable = false;
      if (!WaitReadable(-1, wake_fd, backoff_ms, &readable)) break;
      backoff_ms = std::min(backoff_ms * 2, options_.backoff_max_ms);
    }
  }
  close(wake_fd);
}

bool RedisSubscriber::RunSession(const std::stop_token& stop, int wake_fd) {
  const std::string address = options_.host + ":" + std::to_string(options_.port);
  auto fail = [&](const std::string& why) {
    std::lock_guard lock(error_mu_);
    last_error_ = Status(StatusCode::UNAVAILABLE, "Redis subscriber at " + address + ": " + why);
  };
  const int connect_ms = std::max(options_.connect_timeout_ms, 1);
  const timeval timeout{.tv_sec = connect_ms / 1000, .tv_usec = (connect_ms % 1000) * 1000};
  ContextPtr c(redisConnectWithTimeout(options_.host.c_str(), options_.port, timeout));
  if (c == nullptr) {
    fail("out of memory");
    return false;
  }
  if (c->err != 0) {
    fail(ContextError(c.get()));
    return false;
  }
  redisEnableKeepAlive(c.get());
  std::vector<std::string> subscribe{"SUBSCRIBE"};
  subscribe.insert(subscribe.end(), options_.channels.begin(), options_.channels.end());
  if (!Append(c.get(), subscribe) || !Flush(c.get())) {
    fail(ContextError(c.get()));
    return false;
  }
  const int64_t ping_every = std::max(options_.liveness_ms / 3, 1);
  int64_t last_heard = NowMs();
  int64_t last_ping = last_heard;
  size_t confirmed = 0;
  bool subscribed = false;
  while (!stop.stop_requested()) {
    void* raw = nullptr;
    while (redisGetReplyFromReader(c.get(), &raw) == REDIS_OK && raw != nullptr) {
      const RedisReplyPtr reply(static_cast<redisReply*>(raw));
      raw = nullptr;
      const std::string_view kind = ElementText(reply.get(), 0);
      if (kind == "message" && reply->elements == 3) {
        on_message_(std::string(ElementText(reply.get(), 1)),
                    std::string(ElementText(reply.get(), 2)));
      } else if (kind == "subscribe" && ++confirmed == options_.channels.size()) {
        subscribed = true;
        ++subscriptions_;
        if (on_subscribed_) on_subscribed_();
      } else if (reply->type == REDIS_REPLY_ERROR) {
        fail(std::string(ReplyText(reply.get())));
        return subscribed;
      }
    }
    if (c->err != 0) break;
    const int64_t now = NowMs();
    const int64_t wait = std::min(last_ping + ping_every, last_heard + options_.liveness_ms) - now;
    bool readable = false;
    if (!WaitReadable(c->fd, wake_fd, static_cast<int>(std::max<int64_t>(wait, 0)), &readable)) {
      return subscribed;  // stopping
    }
    if (readable) {
      if (redisBufferRead(c.get()) != REDIS_OK) break;
      last_heard = NowMs();
      continue;
    }
    const int64_t later = NowMs();
    if (later - last_heard >= options_.liveness_ms) {
      fail("nothing received for " + std::to_string(options_.liveness_ms) + " ms");
      return subscribed;
    }
    if (later - last_ping >= ping_every) {
      // A PING on a subscribed connection is answered as a "pong" message, which is all the
      // liveness check needs.
      if (!Append(c.get(), {"PING"}) || !Flush(c.get())) break;
      last_ping = later;
    }
  }
  if (c->err != 0) fail(ContextError(c.get()));
  return subscribed;
}

}  // namespace ferry::storage
