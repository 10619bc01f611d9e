#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ferry/codec/status.h"
#include "storage/request_scope.h"

namespace ferry::seckill {

struct ActivityRecord {
  int64_t activity_id = 0;
  int64_t sku_id = 0;
  std::string name;
  int64_t initial_stock = 0;
  int64_t start_time_ms = 0;
  int64_t end_time_ms = 0;
  int64_t price_cents = 0;
  uint32_t pay_timeout_s = 0;
  bool open = false;            // a preheat succeeded
  int64_t remaining_stock = 0;  // the database's count of unsold units
  // The reservation cache's generation, set by each preheat that loads the cache (0: never),
  // and the highest reservation sequence number of that generation written as an order: a
  // cache whose count of reservations is lower has lost some (it was rolled back).
  int64_t cache_epoch = 0;
  int64_t cache_seq = 0;
};

// kConfirming: a payment's result is unknown (the channel did not answer); the order waits for
// that result and is neither closed by the pay timeout nor cancelled by the buyer meanwhile.
enum class OrderState { kUnpaid, kConfirming, kPaid, kCancelled };
// "UNPAID", "CONFIRMING", "PAID", "CANCELLED"
std::string_view OrderStateName(OrderState state);

struct OrderRecord {
  int64_t order_no = 0;
  int64_t activity_id = 0;
  int64_t sku_id = 0;
  std::string user_id;
  std::string request_id;
  OrderState state = OrderState::kUnpaid;
  int64_t created_ms = 0;
  int64_t pay_deadline_ms = 0;
};

// An order to write: the reservation it comes from, its number and when it must be paid.
struct OrderDraft {
  int64_t activity_id = 0;
  int64_t sku_id = 0;
  std::string user_id;
  std::string request_id;
  int64_t order_no = 0;
  int64_t created_ms = 0;
  int64_t pay_deadline_ms = 0;
  // The cache generation and sequence number the reservation was accepted under (0: none); an
  // order of the current generation raises the activity's cache_seq to it.
  int64_t cache_epoch = 0;
  int64_t cache_seq = 0;
};

enum class PlaceOutcome {
  kCreated,        // the order was written now (or by an earlier delivery of the same request)
  kAlreadyJoined,  // the user holds an order of this activity, in any state
  kSoldOut,        // the database had no unit left
};

struct PlaceResult {
  PlaceOutcome outcome = PlaceOutcome::kCreated;
  bool replayed = false;  // the request id had been decided before; this is that decision
  int64_t order_no = 0;   // kCreated: the order's number (the earlier one when replayed)
};

// Why a request got no order; stored in the database and returned by GetResult.
inline constexpr const char* kReasonSoldOut = "sold_out";
inline constexpr const char* kReasonAlreadyJoined = "already_joined";
// The order writer gave the reservation's event up (order_writer.max_deliveries): it did not
// parse, or its transaction kept failing.
inline constexpr const char* kReasonUnparsable = "unparsable";
inline constexpr const char* kReasonWriteFailed = "write_failed";

// What the database decided for a request id.
struct RequestRecord {
  bool created = false;  // true: order_no is its order; false: failed for `reason`
  int64_t order_no = 0;
  std::string reason;  // kReasonSoldOut, kReasonAlreadyJoined, kReasonUnparsable, ...
};

// What the payment channel said about a payment.
enum class ChannelReport {
  kSucceeded,  // the money was taken
  kUnknown,    // no answer (a query timed out): the money may or may not have been taken
  kFailed,     // the money was not taken
};

enum class PaymentResult {
  kPaid,                 // this payment settled the order
  kAlreadyPaid,          // this payment had settled it before
  kRefundRequired,       // the money arrived for a closed or already paid order
  kPendingConfirmation,  // the result is unknown; report it again once the channel knows
  kNotPaid,              // the channel says the money was not taken
};

enum class RefundResult { kRefunded, kAlreadyRefunded };

struct CancelResult {
  bool cancelled = false;                  // this call closed the order and released its unit
  OrderState state = OrderState::kUnpaid;  // the order's state afterwards
  int64_t cache_epoch = 0;                 // cancelled: the generation its release belongs to
};

// A unit given back to the database by a cancellation that still has to reach the cache.
// It belongs to the cache generation current when the cancellation committed: a cache loaded
// later (another generation) was loaded from a stock that counts the unit already.
struct PendingCacheRelease {
  int64_t order_no = 0;
  int64_t activity_id = 0;
  int64_t sku_id = 0;
  int64_t cache_epoch = 0;
  int64_t current_epoch = 0;  // the activity's generation when the release was listed
};

// What a preheat loads a new cache generation from, decided in one transaction.
struct CacheEpochBase {
  int64_t remaining_stock = 0;
  // Per reservation passed in: false when the database has decided it (ordered or failed).
  std::vector<bool> undecided;
};

struct StoreCounts {
  int64_t remaining_stock = 0;
  int64_t orders_unpaid = 0;
  int64_t orders_confirming = 0;
  int64_t orders_paid = 0;
  int64_t orders_cancelled = 0;
  int64_t refunds_required = 0;  // owed and not yet recorded as refunded
  int64_t refunds_done = 0;
  int64_t users_with_two_orders = 0;
  int64_t requests_created = 0;
  int64_t requests_failed = 0;
  int64_t cache_epoch = 0;
  int64_t cache_seq = 0;
  // Units cancellations gave back to the database that the current cache generation has not
  // received yet.
  int64_t releases_pending = 0;
};

// The database of record: activities, stock, orders, payments. Every method is one
// transaction, safe to call from many threads; a transient failure (deadlock, lost connection)
// is retried inside, so callers see either the outcome or an error after which nothing changed.
class OrderStore {
 public:
  virtual ~OrderStore() = default;

  // Creates the tables if they are missing.
  virtual Status Initialize() = 0;

  // Fills in activity_id; remaining_stock starts at initial_stock, closed.
  virtual Status CreateActivity(ActivityRecord* activity) = 0;
  // NOT_FOUND when absent.
  virtual Status GetActivity(int64_t activity_id, ActivityRecord* out) = 0;
  virtual Status MarkOpen(int64_t activity_id) = 0;
  // Starts cache generation `epoch` (unique: chosen at random) for the activity, in one
  // transaction that locks its stock row: reads the remaining stock and which of
  // `reservations` (accepted by the cache, kept across the reload) have no decision yet, so
  // that neither an order written nor a cancellation committed meanwhile is counted twice or
  // lost; records the generation as the current one (cache_seq back to 0) and among the
  // activity's generations. Releases of earlier generations are counted in that stock.
  virtual Status BeginCacheEpoch(int64_t activity_id, int64_t sku_id, int64_t epoch,
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

  // Idempotent by the draft's RequestScope (user, activity, sku, request id).
  // In one transaction: a request decided before gets its decision back; a user with an order
  // gets kAlreadyJoined; otherwise one unit is taken by a conditional decrement (none left:
  // kSoldOut) and the order inserted UNPAID. Failed decisions are recorded under the request id
  // too, so the same request always gets the same answer.
  virtual Status PlaceOrder(const OrderDraft& draft, PlaceResult* result) = 0;
  // Decides that the request gets no order, for `reason` (1..32 bytes), unless it was decided
  // before; *decided is the request's decision either way. Takes no stock. A later PlaceOrder
  // of the request replays the failure (as kAlreadyJoined unless the reason is sold_out).
  virtual Status FailRequest(const RequestScope& scope, const std::string& reason,
                             RequestRecord* decided) = 0;
  // The decision recorded under `scope`. A zero activity_id (and sku_id) or an empty user_id
  // leaves that part open: answered when exactly one decision matches, INVALID_ARGUMENT naming
  // the missing fields when several do. NOT_FOUND when none was decided.
  virtual Status GetRequest(const RequestScope& scope, RequestRecord* out) = 0;
  virtual Status GetOrder(int64_t order_no, OrderRecord* out) = 0;

  // Idempotent by (channel, channel_txn_id): one payment record per transaction, whose result
  // is settled once. kSucceeded: UNPAID or CONFIRMING -> PAID; a payment for a closed order,
  // or another payment for a paid one, is recorded as refund-required, with its refund record.
  // kUnknown: UNPAID -> CONFIRMING (kPendingConfirmation) until the same transaction is
  // reported kSucceeded or kFailed; kFailed puts a CONFIRMING order back to UNPAID once no
  // other payment of it is unknown. NOT_FOUND for an unknown order.
  virtual Status Pay(int64_t order_no, const std::string& channel,
                     const std::string& channel_txn_id, ChannelReport report,
                     PaymentResult* outcome) = 0;
  // Records that the refund owed for payment (channel, channel_txn_id) was made as `refund_id`.
  // Idempotent by the payment: the same refund id again is kAlreadyRefunded; another refund id
  // for a refunded payment is ALREADY_EXISTS (it would be a second refund); a payment that is
  // owed no refund is FAILED_PRECONDITION, an unknown one NOT_FOUND.
  virtual Status RecordRefund(const std::string& channel, const std::string& channel_txn_id,
                              const std::string& refund_id, RefundResult* outcome) = 0;
  // UNPAID -> CANCELLED (a CONFIRMING order is left alone); only when that changed the row is the
  // unit returned to the database stock and queued for the cache (ListPendingCacheReleases).
  // NOT_FOUND for an unknown order.
  virtual Status CancelUnpaid(int64_t order_no, CancelResult* result) = 0;
  virtual Status ListExpiredUnpaid(int64_t now_ms, int limit, std::vector<int64_t>* out) = 0;
  // Releases not yet handed to the cache, with the activity's current generation.
  virtual Status ListPendingCacheReleases(int limit, std::vector<PendingCacheRelease>* out) = 0;
  virtual Status MarkCacheReleased(int64_t order_no) = 0;

  virtual Status Count(int64_t activity_id, int64_t sku_id, StoreCounts* out) = 0;
};

}  // namespace ferry::seckill
