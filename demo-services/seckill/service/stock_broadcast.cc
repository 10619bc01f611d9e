#include "service/stock_broadcast.h"

#include "service/seckill_metrics.h"

namespace ferry::seckill {

namespace {

const char* KindName(StockSignal::Kind kind) {
  return kind == StockSignal::Kind::kSoldOut ? "sold_out" : "reopened";
}

storage::RedisOptions PublisherOptions(storage::RedisOptions redis) {
  redis.pool_size = 1;  // publishes go through the pool's asynchronous connection
  return redis;
}

}  // namespace

StockBroadcast::StockBroadcast(const storage::RedisOptions& redis, std::string channel)
    : channel_(std::move(channel)), redis_(redis), publisher_(PublisherOptions(redis)) {}

void StockBroadcast::Publish(const StockSignal& signal) {
  const bool queued =
      publisher_.RunAsync({{"PUBLISH", channel_, EncodeStockSignal(signal)}},
                          [](const Status&, std::vector<storage::RedisReplyPtr>) {});
  Metrics().CountSignal(queued ? "sent" : "dropped", KindName(signal.kind));
}

void StockBroadcast::Start(std::function<void(const StockSignal&)> on_signal,
                           std::function<void()> on_subscribed) {
  storage::RedisSubscriberOptions options;
  options.host = redis_.host;
  options.port = redis_.port;
  options.connect_timeout_ms = redis_.timeout_ms;
  options.channels = {channel_};
  subscriber_ = std::make_unique<storage::RedisSubscriber>(
      options,
      [on_signal = std::move(on_signal)](const std::string&, const std::string& message) {
        StockSignal signal;
        if (!DecodeStockSignal(message, &signal)) return;
        Metrics().CountSignal("received", KindName(signal.kind));
        on_signal(signal);
      },
      std::move(on_subscribed));
  thread_ = std::jthread([this](const std::stop_token& stop) { subscriber_->Run(stop); });
}

void StockBroadcast::Stop() {
  if (thread_.joinable()) {
    thread_.request_stop();
    thread_.join();
  }
}

}  // namespace ferry::seckill
