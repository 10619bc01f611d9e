#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "storage/order_store.h"

namespace ferry::seckill::testing {

// An OrderStore that hands every call to a real one, for tests that hold or count some of them
// (override those); calls() counts every call handed on.
class ForwardingOrderStore : public OrderStore {
 public:
  explicit ForwardingOrderStore(std::unique_ptr<OrderStore> real) : real_(std::move(real)) {}

  Status Initialize() override { return Real()->Initialize(); }
  Status CreateActivity(ActivityRecord* a) override { return Real()->CreateActivity(a); }
  Status GetActivity(int64_t id, ActivityRecord* out) override {
    return Real()->GetActivity(id, out);
  }
  Status HighestActivityId(int64_t* out) override { return Real()->HighestActivityId(out); }
  Status MarkOpen(int64_t id) override { return Real()->MarkOpen(id); }
  Status BeginCacheEpoch(int64_t id, int64_t sku, int64_t previous, int64_t epoch,
                         const std::string& server, int64_t counted_reservations,
                         const std::vector<RequestScope>& reservations,
                         CacheEpochBase* out) override {
    return Real()->BeginCacheEpoch(id, sku, previous, epoch, server, counted_reservations,
                                   reservations, out);
  }
  Status KnowsCacheEpoch(int64_t id, int64_t sku, int64_t epoch, bool* known) override {
    return Real()->KnowsCacheEpoch(id, sku, epoch, known);
  }
  Status ListOpenActivities(int64_t after_ms, std::vector<ActivityRecord>* out) override {
    return Real()->ListOpenActivities(after_ms, out);
  }
  Status ListBuyers(int64_t id, int64_t sku, std::vector<std::string>* out) override {
    return Real()->ListBuyers(id, sku, out);
  }
  Status PlaceOrder(const OrderDraft& draft, PlaceResult* result) override {
    return Real()->PlaceOrder(draft, result);
  }
  Status FailRequest(const RequestScope& scope, const std::string& reason, RequestRecord* decided,
                     int64_t* cache_epoch) override {
    return Real()->FailRequest(scope, reason, decided, cache_epoch);
  }
  Status GetRequest(const RequestScope& id, RequestRecord* out) override {
    return Real()->GetRequest(id, out);
  }
  Status GetOrder(int64_t order_no, OrderRecord* out) override {
    return Real()->GetOrder(order_no, out);
  }
  Status FindUndecided(const std::vector<RequestScope>& scopes,
                       std::vector<bool>* undecided) override {
    return Real()->FindUndecided(scopes, undecided);
  }
  Status BeginPayment(int64_t order_no, const std::string& channel,
                      const std::string& replaced_channel, int64_t now_ms,
                      OrderRecord* out) override {
    return Real()->BeginPayment(order_no, channel, replaced_channel, now_ms, out);
  }
  Status RecordPaymentId(int64_t order_no, const std::string& channel,
                         const std::string& payment_id) override {
    return Real()->RecordPaymentId(order_no, channel, payment_id);
  }
  Status ApplyPayment(int64_t order_no, const std::string& channel,
                      const ChannelPaymentStatus& payment, const std::string& notification_id,
                      int64_t now_ms, PaymentApplied* out) override {
    return Real()->ApplyPayment(order_no, channel, payment, notification_id, now_ms, out);
  }
  Status RecordRefund(const std::string& channel, const std::string& txn,
                      const std::string& refund_id, RefundResult* outcome) override {
    return Real()->RecordRefund(channel, txn, refund_id, outcome);
  }
  Status ListRefundsOwed(int limit, std::vector<OwedRefund>* out) override {
    return Real()->ListRefundsOwed(limit, out);
  }
  Status ForgetNotifications(int64_t before_ms, int limit, int64_t* removed) override {
    return Real()->ForgetNotifications(before_ms, limit, removed);
  }
  Status CloseOrder(int64_t order_no, const std::vector<OrderState>& from, int64_t due_ms,
                    CancelResult* result) override {
    return Real()->CloseOrder(order_no, from, due_ms, result);
  }
  Status AwaitConfirmation(int64_t order_no, int64_t check_at_ms,
                           int64_t confirm_deadline_ms) override {
    return Real()->AwaitConfirmation(order_no, check_at_ms, confirm_deadline_ms);
  }
  Status ListDueOrders(int64_t now_ms, int limit, std::vector<OrderRecord>* out) override {
    return Real()->ListDueOrders(now_ms, limit, out);
  }
  Status ListPendingCacheReleases(int limit, std::vector<PendingCacheRelease>* out) override {
    return Real()->ListPendingCacheReleases(limit, out);
  }
  Status ForgetCacheRelease(int64_t order_no) override {
    return Real()->ForgetCacheRelease(order_no);
  }
  Status Count(int64_t id, int64_t sku, StoreCounts* out) override {
    return Real()->Count(id, sku, out);
  }
  Status ChangeBlacklist(const BlacklistChange& change) override {
    return Real()->ChangeBlacklist(change);
  }
  Status ReadBlacklist(BlacklistEntries* out) override { return Real()->ReadBlacklist(out); }

  int64_t calls() const { return calls_.load(); }

 protected:
  OrderStore* Real() {
    calls_.fetch_add(1);
    return real_.get();
  }

 private:
  std::unique_ptr<OrderStore> real_;
  std::atomic<int64_t> calls_{0};
};

}  // namespace ferry::seckill::testing
