#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "paysim.ferry.h"
#include "service/notices.h"
#include "service/notifier.h"
#include "service/payment_desk.h"

namespace ferry::paysim {

struct PaysimParts {
  const Merchants* merchants = nullptr;
  PaymentStore* store = nullptr;
  PaymentDesk* desk = nullptr;
  Notices* notices = nullptr;
  Faults* faults = nullptr;
  std::function<int64_t()> now_ms;
  int64_t max_skew_ms = 300000;
};

// The RPC handlers: merchant calls verified by their signature, the buyer's Checkout (its
// token is the credential), and the operators' fault controls (guarded by the server's `auth`
// filter in shipped configs).
class PaysimServiceImpl final : public PaysimServiceBase {
 public:
  explicit PaysimServiceImpl(PaysimParts parts) : parts_(std::move(parts)) {}

  Status CreatePayment(ServerContext& context, const MerchantCall& request,
                       PaymentResponse* response) override;
  Status QueryPayment(ServerContext& context, const MerchantCall& request,
                      PaymentResponse* response) override;
  Status ClosePayment(ServerContext& context, const MerchantCall& request,
                      PaymentResponse* response) override;
  Status RefundPayment(ServerContext& context, const MerchantCall& request,
                       PaymentResponse* response) override;
  Status Checkout(ServerContext& context, const CheckoutRequest& request,
                  CheckoutResponse* response) override;
  Status ReplayNotification(ServerContext& context, const ReplayNotificationRequest& request,
                            NotificationRef* response) override;
  Status SendForgedAmount(ServerContext& context, const SendForgedAmountRequest& request,
                          NotificationRef* response) override;
  Status SetFaults(ServerContext& context, const SetFaultsRequest& request,
                   SetFaultsResponse* response) override;
  Status ListNotifications(ServerContext& context, const ListNotificationsRequest& request,
                           ListNotificationsResponse* response) override;

 private:
  // The fault switch, then the call's signature; *body parsed.
  Status Admit(std::string_view method, const MerchantCall& call,
               google::protobuf::Message* body) const;

  const PaysimParts parts_;
};

}  // namespace ferry::paysim
