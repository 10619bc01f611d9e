#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "ferry/codec/status.h"
#include "storage/payment_records.h"

namespace ferry::paysim {

// The channel's records: payments and the deliveries of its notifications. Every change is a
// conditional update, so concurrent calls about one payment agree on its state. Safe to call
// from many threads.
class PaymentStore {
 public:
  virtual ~PaymentStore() = default;

  // Inserts `payment`, or leaves the one recorded for its merchant and order; *out is the
  // payment recorded either way, *created whether it is `payment`.
  virtual Status CreatePayment(const PaymentRecord& payment, PaymentRecord* out, bool* created) = 0;
  // NOT_FOUND when the merchant has no payment for the order.
  virtual Status GetPayment(const std::string& merchant_id, int64_t order_no,
                            PaymentRecord* out) = 0;
  virtual Status GetPaymentByCheckout(const std::string& checkout, PaymentRecord* out) = 0;
  // Moves the payment to `to` (with its transaction and refund ids) only from one of `from`;
  // *changed says whether it did. *after is the payment afterwards, either way.
  virtual Status Transition(const std::string& merchant_id, int64_t order_no,
                            std::initializer_list<PaymentStatus> from, PaymentStatus to,
                            const std::string& channel_txn_id, const std::string& refund_id,
                            bool* changed, PaymentRecord* after) = 0;

  // Queues a delivery (its id assigned here, into *delivery_id when given).
  virtual Status AddDelivery(const DeliveryRecord& delivery, int64_t* delivery_id = nullptr) = 0;
  // Queued deliveries due by `now_ms`, oldest first.
  virtual Status ListDueDeliveries(int64_t now_ms, int limit, std::vector<DeliveryRecord>* out) = 0;
  // Records an attempt's result: its state, attempts, next time and error.
  virtual Status UpdateDelivery(const DeliveryRecord& delivery) = 0;
  // The first delivery of a notification; NOT_FOUND when none was sent.
  virtual Status GetNotification(const std::string& notification_id, DeliveryRecord* out) = 0;
  // Every delivery about one order, oldest first.
  virtual Status ListDeliveries(const std::string& merchant_id, int64_t order_no,
                                std::vector<DeliveryRecord>* out) = 0;
};

}  // namespace ferry::paysim
