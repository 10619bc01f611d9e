#pragma once

#include "seckill.ferry.h"
#include "service/seckill_core.h"

namespace ferry::seckill {

// The RPC surface of the seckill provider. Handlers validate, answer from provider-local state
// when they can (answers given before, the sold-out flag, the activity window), and otherwise
// go to the reservation cache (redis+mariadb) or the order store (embedded).
class SeckillServiceImpl final : public SeckillServiceBase {
 public:
  explicit SeckillServiceImpl(SeckillCore* core) : core_(core) {}

  Status CreateActivity(ServerContext& context, const CreateActivityRequest& request,
                        CreateActivityResponse* response) override;
  Status Preheat(ServerContext& context, const PreheatRequest& request,
                 PreheatResponse* response) override;
  Status GetActivity(ServerContext& context, const ActivityRef& request,
                     GetActivityResponse* response) override;
  Status Purchase(ServerContext& context, const PurchaseRequest& request,
                  PurchaseResponse* response) override;
  Status GetResult(ServerContext& context, const GetResultRequest& request,
                   GetResultResponse* response) override;
  Status Reconcile(ServerContext& context, const ActivityRef& request,
                   ReconcileResponse* response) override;

  // seckill_service_admission.cc
  Status Admit(ServerContext& context, const AdmitRequest& request,
               AdmitResponse* response) override;
  Status Blacklist(ServerContext& context, const BlacklistRequest& request,
                   BlacklistResponse* response) override;

  // seckill_service_payments.cc
  Status StartPayment(ServerContext& context, const StartPaymentRequest& request,
                      StartPaymentResponse* response) override;
  Status GetOrder(ServerContext& context, const GetOrderRequest& request,
                  OrderView* response) override;
  Status NotifyPayment(ServerContext& context, const ChannelNotification& request,
                       NotifyPaymentResponse* response) override;
  Status CancelOrder(ServerContext& context, const CancelOrderRequest& request,
                     CancelOrderResponse* response) override;
  Status Refund(ServerContext& context, const RefundRequest& request,
                RefundResponse* response) override;

 private:
  // The reservation (cache backend) or the order itself (embedded) for a running sale.
  Status Decide(const ActivityRecord& activity, const PurchaseRequest& request,
                PurchaseAnswer* answer);
  // Replaces *answer with the decision recorded for `scope` (in the cache, else the database),
  // if there is one.
  Status RecordedAnswer(const RequestScope& scope, PurchaseAnswer* answer);
  // What stops a buyer's purchase before any stock is looked at: the blacklist, a missing or
  // wrong admission token, an order queue over its bound (BUSY, *busy set). Not OK, or *busy,
  // ends the purchase.
  Status Entrance(const ServerContext& context, const PurchaseRequest& request,
                  const std::string& admission_token, PurchaseResponse* busy_response, bool* busy);
  // The call's buyer's order `order_no` (NOT_FOUND for anyone else's).
  Status BuyersOrder(const ServerContext& context, int64_t order_no, OrderRecord* order);

  SeckillCore* core_;
};

}  // namespace ferry::seckill
