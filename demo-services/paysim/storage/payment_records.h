#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ferry::paysim {

enum class PaymentStatus { kPending, kSucceeded, kFailed, kClosed, kRefunded };

std::string_view PaymentStatusName(PaymentStatus status);
// kPending for a name no status has (never written by this store).
PaymentStatus PaymentStatusOf(std::string_view name);

// One payment: at most one per merchant and order.
struct PaymentRecord {
  std::string merchant_id;
  int64_t order_no = 0;
  std::string payment_id;
  std::string checkout;  // the buyer's capability to pay it: unguessable
  int64_t amount_cents = 0;
  std::string currency;
  std::string description;
  int64_t expires_at_ms = 0;
  PaymentStatus status = PaymentStatus::kPending;
  std::string channel_txn_id;  // kSucceeded, kRefunded
  std::string refund_id;       // kRefunded
  int64_t created_ms = 0;
};

enum class DeliveryState { kQueued, kDelivered, kGaveUp };

std::string_view DeliveryStateName(DeliveryState state);

// One delivery of a notification to its merchant; a replay is another delivery of the same
// notification (same id, same bytes).
struct DeliveryRecord {
  int64_t delivery_id = 0;  // assigned by the store
  std::string notification_id;
  std::string merchant_id;
  int64_t order_no = 0;
  std::string payload;
  std::string signature;
  DeliveryState state = DeliveryState::kQueued;
  int64_t attempts = 0;
  int64_t next_attempt_ms = 0;
  std::string last_error;
};

}  // namespace ferry::paysim
