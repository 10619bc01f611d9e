#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <stop_token>
#include <string>
#include <vector>

#include "ferry/codec/status.h"

namespace ferry::storage {

struct RedisSubscriberOptions {
  std::string host = "127.0.0.1";
  int port = 6379;
  int connect_timeout_ms = 1000;
  std::vector<std::string> channels;  // SUBSCRIBE'd on every (re)connection
  // A connection that received nothing for this long (it PINGs at a third of it) is taken for
  // dead and replaced: a server gone without a FIN would otherwise never be noticed.
  int liveness_ms = 3000;
  // Waits between failed connections: doubling from the first to the last.
  int backoff_first_ms = 50;
  int backoff_max_ms = 2000;
};

// Redis pub/sub on a connection of its own (a subscribed connection can carry nothing else).
// Run() is the owner's to call on a thread it controls, and every callback runs there: the owner
// decides what may block it and when it ends. It connects, subscribes, hands each message to
// `on_message`, and when the connection breaks (or goes silent) connects again with backoff and
// subscribes again. Messages published while it was not subscribed are lost, as pub/sub loses
// them: `on_subscribed`, called after every subscription including the first, is where an owner
// heals from that (reads again what the messages would have told it).
class RedisSubscriber {
 public:
  using OnMessage = std::function<void(const std::string& channel, const std::string& message)>;
  using OnSubscribed = std::function<void()>;

  RedisSubscriber(RedisSubscriberOptions options, OnMessage on_message,
                  OnSubscribed on_subscribed = nullptr);

  // Until `stop` is requested; returns soon after (a stop wakes the connection's wait and the
  // backoff). One Run at a time.
  void Run(const std::stop_token& stop);

  // Subscriptions made since construction (reconnections included), for tests and logs.
  int64_t subscriptions() const { return subscriptions_; }
  // Why the last connection ended or could not be made (OK while none failed).
  Status last_error() const;

 private:
  // One connection's life: connect, subscribe, read until it breaks or `stop`. True when it
  // got as far as subscribing (the backoff starts over).
  bool RunSession(const std::stop_token& stop, int wake_fd);

  const RedisSubscriberOptions options_;
  const OnMessage on_message_;
  const OnSubscribed on_subscribed_;
  std::atomic<int64_t> subscriptions_{0};
  mutable std::mutex error_mu_;
  Status last_error_;
};

}  // namespace ferry::storage
