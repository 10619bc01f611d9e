#pragma once

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "ferry/storage/redis_connection_pool.h"
#include "ferry/storage/redis_subscriber.h"
#include "service/stock_signal.h"

namespace ferry::seckill {

// The providers' stock signals over Redis pub/sub (redis+mariadb): each provider publishes what
// it found on one channel and subscribes to it, its own messages included. Pub/sub keeps
// nothing, so a provider that was not subscribed when a signal went out never gets it; the
// subscription's (re)start is reported so the owner reads again what it may have missed.
class StockBroadcast {
 public:
  StockBroadcast(const storage::RedisOptions& redis, std::string channel);
  ~StockBroadcast() { Stop(); }
  StockBroadcast(const StockBroadcast&) = delete;
  StockBroadcast& operator=(const StockBroadcast&) = delete;

  // Without waiting for Redis: a purchase that found the last unit gone is not held up by it.
  // A signal that finds the publishing queue full is dropped (peers heal at their next read).
  void Publish(const StockSignal& signal);
  // Subscribes on a thread of its own, where both callbacks run.
  void Start(std::function<void(const StockSignal&)> on_signal,
             std::function<void()> on_subscribed);
  // Ends the subscription and its thread. Idempotent.
  void Stop();

 private:
  const std::string channel_;
  const storage::RedisOptions redis_;
  storage::RedisConnectionPool publisher_;
  std::unique_ptr<storage::RedisSubscriber> subscriber_;
  std::jthread thread_;
};

}  // namespace ferry::seckill
