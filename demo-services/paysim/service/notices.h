#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "ferry/codec/status.h"
#include "service/merchants.h"
#include "storage/payment_store.h"

namespace ferry::paysim {

// The notifications the channel sends its merchants: payload (NotificationPayload) and its
// signature, made once and queued as a delivery, so that every retry and replay sends the same
// bytes. The Notifier sends them.
class Notices {
 public:
  Notices(PaymentStore* store, const Merchants* merchants, std::function<int64_t()> now_ms,
          std::function<void()> queued)
      : store_(store),
        merchants_(merchants),
        now_ms_(std::move(now_ms)),
        queued_(std::move(queued)) {}

  // A new notification of `payment` as it now is.
  Status Send(const PaymentRecord& payment, std::string* notification_id = nullptr);
  // A correctly signed notification saying the payment was paid `amount_cents`.
  Status SendForgedAmount(const PaymentRecord& payment, int64_t amount_cents,
                          std::string* notification_id);
  // Another delivery of an earlier notification, byte for byte.
  Status Replay(const std::string& notification_id);

 private:
  Status Queue(const PaymentRecord& payment, int64_t amount_cents, std::string* notification_id);

  PaymentStore* const store_;
  const Merchants* const merchants_;
  const std::function<int64_t()> now_ms_;
  const std::function<void()> queued_;
};

}  // namespace ferry::paysim
