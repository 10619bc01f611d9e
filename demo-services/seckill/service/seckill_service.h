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
  Status Preheat(ServerContext& context, const ActivityRef& request,
                 PreheatResponse* response) override;
  Status GetActivity(ServerContext& context, const ActivityRef& request,
                     GetActivityResponse* response) override;
  Status Purchase(ServerContext& context, const PurchaseRequest& request,
                  PurchaseResponse* response) override;
  Status GetResult(ServerContext& context, const GetResultRequest& request,
                   GetResultResponse* response) override;
  Status Pay(ServerContext& context, const PayRequest& request, PayResponse* response) override;
  Status Refund(ServerContext& context, const RefundRequest& request,
                RefundResponse* response) override;
  Status CancelOrder(ServerContext& context, const CancelOrderRequest& request,
                     CancelOrderResponse* response) override;
  Status Reconcile(ServerContext& context, const ActivityRef& request,
                   ReconcileResponse* response) override;

 private:
  // The reservation (cache backend) or the order itself (embedded) for a running sale.
  Status Decide(const ActivityRecord& activity, const PurchaseRequest& request,
                PurchaseAnswer* answer);
  // Replaces *answer with the decision recorded for `scope` (in the cache, else the database),
  // if there is one.
  Status RecordedAnswer(const RequestScope& scope, PurchaseAnswer* answer);

  SeckillCore* core_;
};

}  // namespace ferry::seckill
