#pragma once

#include <functional>
#include <memory>

#include "ferry/storage/sql_connection_pool.h"
#include "storage/order_store.h"

namespace ferry::seckill {

// OrderStore over any storage::SqlConnection: the same statements run on SQLite (embedded backend)
// and MariaDB (redis+mariadb backend), so both keep the invariants the same way: the conditional
// decrement `remaining = remaining - 1 WHERE remaining > 0` and the unique keys, never a
// read-then-write.
class SqlOrderStore final : public OrderStore {
 public:
  explicit SqlOrderStore(std::unique_ptr<storage::SqlConnectionPool> pool)
      : pool_(std::move(pool)) {}

  Status Initialize() override;
  Status CreateActivity(ActivityRecord* activity) override;
  Status GetActivity(int64_t activity_id, ActivityRecord* out) override;
  Status HighestActivityId(int64_t* out) override;
  Status MarkOpen(int64_t activity_id) override;
  Status BeginCacheEpoch(int64_t activity_id, int64_t sku_id, int64_t previous, int64_t epoch,
                         const std::string& server, int64_t counted_reservations,
                         const std::vector<RequestScope>& reservations,
                         CacheEpochBase* out) override;
  Status KnowsCacheEpoch(int64_t activity_id, int64_t sku_id, int64_t epoch, bool* known) override;
  Status ListOpenActivities(int64_t after_ms, std::vector<ActivityRecord>* out) override;
  Status ListBuyers(int64_t activity_id, int64_t sku_id, std::vector<std::string>* out) override;

  // sql_order_purchases.cc
  Status PlaceOrder(const OrderDraft& draft, PlaceResult* result) override;
  Status FailRequest(const RequestScope& scope, const std::string& reason, RequestRecord* decided,
                     int64_t* cache_epoch) override;
  Status GetRequest(const RequestScope& scope, RequestRecord* out) override;
  Status GetOrder(int64_t order_no, OrderRecord* out) override;
  Status FindUndecided(const std::vector<RequestScope>& scopes,
                       std::vector<bool>* undecided) override;

  // sql_order_payments.cc
  Status BeginPayment(int64_t order_no, const std::string& channel,
                      const std::string& replaced_channel, int64_t now_ms,
                      OrderRecord* out) override;
  Status RecordPaymentId(int64_t order_no, const std::string& channel,
                         const std::string& payment_id) override;
  Status ApplyPayment(int64_t order_no, const std::string& channel,
                      const ChannelPaymentStatus& payment, const std::string& notification_id,
                      int64_t now_ms, PaymentApplied* out) override;
  Status RecordRefund(const std::string& channel, const std::string& channel_txn_id,
                      const std::string& refund_id, RefundResult* outcome) override;
  Status ListRefundsOwed(int limit, std::vector<OwedRefund>* out) override;
  Status ForgetNotifications(int64_t before_ms, int limit, int64_t* removed) override;

  // sql_order_deadlines.cc
  Status CloseOrder(int64_t order_no, const std::vector<OrderState>& from, int64_t due_ms,
                    CancelResult* result) override;
  Status AwaitConfirmation(int64_t order_no, int64_t check_at_ms,
                           int64_t confirm_deadline_ms) override;
  Status ListDueOrders(int64_t now_ms, int limit, std::vector<OrderRecord>* out) override;
  Status ListPendingCacheReleases(int limit, std::vector<PendingCacheRelease>* out) override;
  Status ForgetCacheRelease(int64_t order_no) override;

  // sql_order_counts.cc
  Status Count(int64_t activity_id, int64_t sku_id, StoreCounts* out) override;

  // sql_order_blacklist.cc
  Status ChangeBlacklist(const BlacklistChange& change) override;
  Status ReadBlacklist(BlacklistEntries* out) override;

 private:
  using Body = std::function<Status(storage::SqlConnection&)>;
  // Runs `body` between Begin and Commit, rolling back on error; retries the whole transaction
  // on ABORTED (deadlock, lock timeout) and ALREADY_EXISTS (a concurrent writer won a unique
  // key, which the next attempt will see).
  Status InTransaction(const Body& body);
  // One statement outside any transaction.
  Status WithConnection(const Body& body);
  // Reads that must agree with each other, in one read-only snapshot (BeginSnapshot).
  Status InSnapshot(const Body& body);

  std::unique_ptr<storage::SqlConnectionPool> pool_;
};

}  // namespace ferry::seckill
