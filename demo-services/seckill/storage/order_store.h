#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ferry/codec/status.h"
#include "storage/order_records.h"
#include "storage/request_scope.h"

namespace ferry::seckill {

// The database of record: activities, stock, orders, payments. Every method is one
// transaction, safe to call from many threads; a transient failure (deadlock, lost connection)
// is retried inside, so callers see either the outcome or an error after which nothing changed.
class OrderStore {
 public:
  virtual ~OrderStore() = default;

  // Creates the tables if they are missing.
  virtual Status Initialize() = 0;

  // --- activities and cache generations -----------------------------------------------------

  // Fills in activity_id; remaining_stock starts at initial_stock, closed.
  virtual Status CreateActivity(ActivityRecord* activity) = 0;
  // NOT_FOUND when absent.
  virtual Status GetActivity(int64_t activity_id, ActivityRecord* out) = 0;
  // The highest activity id assigned (0: none): ids are assigned in increasing order, so no
  // activity above it exists yet.
  virtual Status HighestActivityId(int64_t* out) = 0;
  virtual Status MarkOpen(int64_t activity_id) = 0;
  // Switches the activity from cache generation `previous` to `epoch` (unique: chosen at
  // random), loaded into Redis server `server`, in one transaction that locks the stock row:
  // ABORTED, changing nothing, when the current generation is not `previous` (another preheat
  // switched first). Reads the remaining stock and which of `reservations` (accepted by the
  // cache and kept across the reload) have no decision yet, so that neither an order written
  // nor a cancellation committed meanwhile is counted twice or lost; records the generation as
  // the current one (cache_seq back to 0) and among the activity's generations.
  // `counted_reservations` is the cache's count of accepted reservations as the new generation
  // starts (those of `reservations`, kept; 0 when its keys were wiped): decided_base becomes the
  // decisions recorded now less those the count includes, so that the count less the decisions
  // since is what the database has still to decide. Releases of earlier generations are counted
  // in that stock.
  virtual Status BeginCacheEpoch(int64_t activity_id, int64_t sku_id, int64_t previous,
                                 int64_t epoch, const std::string& server,
                                 int64_t counted_reservations,
                                 const std::vector<RequestScope>& reservations,
                                 CacheEpochBase* out) = 0;
  // Whether `epoch` is one of the activity's cache generations (current or earlier): keys of
  // another generation were written for another activity under the same id.
  virtual Status KnowsCacheEpoch(int64_t activity_id, int64_t sku_id, int64_t epoch,
                                 bool* known) = 0;
  // Open activities whose end time is after `after_ms`.
  virtual Status ListOpenActivities(int64_t after_ms, std::vector<ActivityRecord>* out) = 0;
  // Users holding an order of the activity in any state, for rebuilding the cache's
  // participation set.
  virtual Status ListBuyers(int64_t activity_id, int64_t sku_id, std::vector<std::string>* out) = 0;

  // --- purchases ----------------------------------------------------------------------------

  // Idempotent by the draft's RequestScope (user, activity, sku, request id).
  // In one transaction: a request decided before gets its decision back; a user with an order
  // gets kAlreadyJoined; otherwise one unit is taken by a conditional decrement (none left:
  // kSoldOut) and the order inserted UNPAID. Failed decisions are recorded under the request id
  // too, so the same request always gets the same answer.
  virtual Status PlaceOrder(const OrderDraft& draft, PlaceResult* result) = 0;
  // Decides that the request gets no order, for `reason` (1..32 bytes), unless it was decided
  // before; *decided is the request's decision either way, *cache_epoch the activity's
  // generation read under the stock row's lock. Takes no stock. A later PlaceOrder of the
  // request replays the failure (as kAlreadyJoined unless the reason is sold_out).
  virtual Status FailRequest(const RequestScope& scope, const std::string& reason,
                             RequestRecord* decided, int64_t* cache_epoch) = 0;
  // The decision recorded under `scope`. A zero activity_id (and sku_id) or an empty user_id
  // leaves that part open: answered when exactly one decision matches, INVALID_ARGUMENT naming
  // the missing fields when several do. NOT_FOUND when none was decided.
  virtual Status GetRequest(const RequestScope& scope, RequestRecord* out) = 0;
  virtual Status GetOrder(int64_t order_no, OrderRecord* out) = 0;
  // Per request of `scopes` (all of one activity and sku): true when the database has no
  // decision for it. One statement.
  virtual Status FindUndecided(const std::vector<RequestScope>& scopes,
                               std::vector<bool>* undecided) = 0;

  // --- payments -----------------------------------------------------------------------------

  // Starts a payment of the order at `channel`: UNPAID -> PAYING while its pay deadline is
  // after `now_ms`, or PAYING at `replaced_channel` (whose payment the caller has closed) ->
  // PAYING at `channel`. *out is the order afterwards, changed or not (PAYING at `channel`
  // already: the same payment again). NOT_FOUND for an unknown order.
  virtual Status BeginPayment(int64_t order_no, const std::string& channel,
                              const std::string& replaced_channel, int64_t now_ms,
                              OrderRecord* out) = 0;
  // The channel's id of the order's payment at `channel`, once the channel created it.
  virtual Status RecordPaymentId(int64_t order_no, const std::string& channel,
                                 const std::string& payment_id) = 0;
  // Applies what `channel` says about the order's payment, once per transaction (and once per
  // notification id, when not empty: kReplayed afterwards). kSucceeded with the order's amount
  // and currency pays an open order (kPaid) or, for an order closed or paid by another
  // transaction, records the money as owed back (kRefundOwed, with its refund record); another
  // amount or currency pays nothing and is owed back (kAmountWrong). kRefunded records the
  // refund, and a refund of the payment that paid the order closes it and returns its unit.
  // Other states record nothing (kUnchanged). NOT_FOUND for an unknown order.
  virtual Status ApplyPayment(int64_t order_no, const std::string& channel,
                              const ChannelPaymentStatus& payment,
                              const std::string& notification_id, int64_t now_ms,
                              PaymentApplied* out) = 0;
  // Records that the refund owed for payment (channel, channel_txn_id) was made as `refund_id`.
  // Idempotent by the payment: the same refund id again is kAlreadyRefunded; another refund id
  // for a refunded payment is FAILED_PRECONDITION (it would be a second refund), as is a
  // payment owed no refund; an unknown one is NOT_FOUND.
  virtual Status RecordRefund(const std::string& channel, const std::string& channel_txn_id,
                              const std::string& refund_id, RefundResult* outcome) = 0;
  // Payments owed back without a refund yet, oldest first.
  virtual Status ListRefundsOwed(int limit, std::vector<OwedRefund>* out) = 0;
  // Drops the notification ids recorded before `before_ms` (older notifications are refused
  // for their age before their id is looked at).
  virtual Status ForgetNotifications(int64_t before_ms, int limit, int64_t* removed) = 0;

  // --- deadlines ------------------------------------------------------------------------------

  // Closes the order when its state is one of `from` and, when `due_ms` > 0, its open state's
  // deadline (pay_deadline_ms; confirm_deadline_ms when CONFIRMING) is at or before `due_ms`:
  // -> CANCELLED, its unit returned to the database stock and queued for the cache
  // (ListPendingCacheReleases). *result says whether this call closed it and the state after.
  // NOT_FOUND for an unknown order.
  virtual Status CloseOrder(int64_t order_no, const std::vector<OrderState>& from, int64_t due_ms,
                            CancelResult* result) = 0;
  // The channel could not tell what became of the order's payment at its deadline: PAYING ->
  // CONFIRMING until `confirm_deadline_ms` (kept when already CONFIRMING), looked at again at
  // `check_at_ms`.
  virtual Status AwaitConfirmation(int64_t order_no, int64_t check_at_ms,
                                   int64_t confirm_deadline_ms) = 0;
  // Open orders (UNPAID, PAYING, CONFIRMING) due for a look at `now_ms`, soonest first.
  virtual Status ListDueOrders(int64_t now_ms, int limit, std::vector<OrderRecord>* out) = 0;
  // Releases not yet handed to the cache, with the activity's current generation.
  virtual Status ListPendingCacheReleases(int limit, std::vector<PendingCacheRelease>* out) = 0;
  // The release reached the cache (or belongs to a generation before the current one): its row
  // goes.
  virtual Status ForgetCacheRelease(int64_t order_no) = 0;

  virtual Status Count(int64_t activity_id, int64_t sku_id, StoreCounts* out) = 0;

  // The blacklist (Blacklist): users and client addresses refused before any purchase. Adds
  // then removes, in one transaction; entries of at most 255 bytes.
  virtual Status ChangeBlacklist(const BlacklistChange& change) = 0;
  virtual Status ReadBlacklist(BlacklistEntries* out) = 0;
};

}  // namespace ferry::seckill
