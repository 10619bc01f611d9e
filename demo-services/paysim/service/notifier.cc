#include "service/notifier.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <future>

#include "ferry/framework/logging.h"
#include "paysim.pb.h"

namespace ferry::paysim {

namespace {

constexpr int kBatch = 64;

// The merchant's NotifyPayment (ferry.seckill.SeckillService in the demo), called with the
// wire-compatible messages of paysim.proto.
constexpr MethodSpec kNotifyPayment{
    .service = "ferry.seckill.SeckillService", .method = "NotifyPayment", .idempotent = true};

}  // namespace

Notifier::Notifier(PaymentStore* store, const Merchants* merchants, const Faults* faults,
                   DeliveryOptions options, std::function<int64_t()> now_ms, ChannelFor channel_for)
    : store_(store),
      merchants_(merchants),
      faults_(faults),
      options_(options),
      now_ms_(std::move(now_ms)),
      channel_for_(std::move(channel_for)) {}

void Notifier::Start() {
  thread_ = std::thread([this] { Loop(); });
}

void Notifier::Wake() {
  {
    std::lock_guard lock(mutex_);
    woken_ = true;
  }
  wake_.notify_all();
}

void Notifier::Stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Notifier::Loop() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    const bool more = Pass();
    lock.lock();
    if (!more) {
      wake_.wait_for(lock, std::chrono::milliseconds(options_.poll_ms),
                     [this] { return stopping_ || woken_; });
    }
    woken_ = false;
  }
}

bool Notifier::Pass() {
  if (faults_->unavailable.load()) return false;
  std::vector<DeliveryRecord> due;
  if (Status s = store_->ListDueDeliveries(now_ms_(), kBatch, &due); !s.ok()) {
    Logger().warn("paysim: deliveries: {}", s.ToString());
    return false;
  }
  for (DeliveryRecord& delivery : due) {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return false;
    }
    Deliver(std::move(delivery));
  }
  return static_cast<int>(due.size()) == kBatch;
}

Status Notifier::Send(const Merchant& merchant, const DeliveryRecord& delivery) {
  auto& channel = channels_[merchant.id];
  if (!channel) channel = channel_for_(merchant);
  if (!channel) return Status(StatusCode::UNAVAILABLE, "no channel to the merchant");
  ChannelNotification request;
  request.set_channel(merchant.channel);
  request.set_payload(delivery.payload);
  request.set_signature(delivery.signature);
  NotifyPaymentResponse response;
  CallOptions call;
  call.timeout = std::chrono::milliseconds(options_.timeout_ms);
  auto done = std::make_shared<std::promise<Status>>();
  std::future<Status> answered = done->get_future();
  channel->CallMethod(kNotifyPayment, request, &response, call,
                      [done](const Status& s) { done->set_value(s); });
  return answered.get();
}

void Notifier::Deliver(DeliveryRecord delivery) {
  const auto merchant = merchants_->find(delivery.merchant_id);
  Status s = merchant == merchants_->end()
                 ? Status(StatusCode::FAILED_PRECONDITION, "merchant is no longer configured")
                 : Send(merchant->second, delivery);
  ++delivery.attempts;
  if (s.ok() || s.code() == StatusCode::ALREADY_EXISTS) {
    delivery.state = DeliveryState::kDelivered;
    delivery.last_error = s.ok() ? "" : s.ToString();
  } else {
    delivery.last_error = s.ToString();
    if (delivery.attempts >= options_.max_attempts) {
      delivery.state = DeliveryState::kGaveUp;
      Logger().warn("paysim: notification {} to merchant {}: gave up after {} attempts: {}",
                    delivery.notification_id, delivery.merchant_id, delivery.attempts,
                    delivery.last_error);
    } else {
      const int shift = static_cast<int>(std::min<int64_t>(delivery.attempts - 1, 30));
      const int64_t backoff =
          std::min(options_.max_backoff_ms, options_.initial_backoff_ms << shift);
      delivery.next_attempt_ms = now_ms_() + backoff;
    }
  }
  if (Status u = store_->UpdateDelivery(delivery); !u.ok()) {
    Logger().warn("paysim: delivery {}: {}", delivery.delivery_id, u.ToString());
  }
}

}  // namespace ferry::paysim
