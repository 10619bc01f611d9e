#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "ferry/codec/status.h"
#include "paysim.pb.h"
#include "service/notices.h"
#include "storage/payment_store.h"

namespace ferry::paysim {

// The channel's payments: what merchants and buyers do to them. A payment past its expiry is
// closed when it is next touched, so nothing can pay it afterwards. Safe to call from many
// threads: every change is a conditional transition of the store.
class PaymentDesk {
 public:
  PaymentDesk(PaymentStore* store, Notices* notices, std::function<int64_t()> now_ms)
      : store_(store), notices_(notices), now_ms_(std::move(now_ms)) {}

  // Idempotent per merchant and order: the same amount and currency again returns the payment
  // made first; another is FAILED_PRECONDITION.
  Status Create(const std::string& merchant, const CreatePaymentRequest& request, Payment* out);
  // NOT_FOUND state (not a status) for an order never created.
  Status Query(const std::string& merchant, int64_t order_no, Payment* out);
  // Closes an open payment; a paid one stays paid. An order never created is closed all the
  // same (answered NOT_FOUND), so that a create arriving late cannot open it.
  Status Close(const std::string& merchant, int64_t order_no, Payment* out);
  // A full refund of a paid payment, once per refund_id.
  Status Refund(const std::string& merchant, const RefundPaymentRequest& request, Payment* out);
  // The buyer pays or fails; a paid payment answers its transaction again.
  Status Checkout(const CheckoutRequest& request, CheckoutResponse* out);
  // The payment, expired if due; NOT_FOUND status for an order never created.
  Status Current(const std::string& merchant, int64_t order_no, PaymentRecord* out);

 private:
  Status Expire(PaymentRecord* payment);

  PaymentStore* const store_;
  Notices* const notices_;
  const std::function<int64_t()> now_ms_;
};

// The wire form of a stored payment.
void ToProto(const PaymentRecord& record, Payment* out);

}  // namespace ferry::paysim
