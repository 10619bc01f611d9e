#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "storage/channel_payment.h"

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
  // The Redis server the generation was loaded into ("<run id>/<replication id>").
  std::string cache_server;
};

// Every state but kPaid and kCancelled is open, and each open state has a deadline after which
// the order closer settles it: kUnpaid and kPaying at pay_deadline_ms, kConfirming at
// confirm_deadline_ms.
enum class OrderState {
  kUnpaid,      // no payment started
  kPaying,      // a payment was started at `channel`; the channel's answer settles it
  kConfirming,  // past the pay deadline, the channel could not be asked: asked again until
                // confirm_deadline_ms, then closed
  kPaid,
  kCancelled,  // closed; its unit went back to stock
};
// "UNPAID", "PAYING", "CONFIRMING", "PAID", "CANCELLED"
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
  int64_t amount_cents = 0;  // the activity's price when the order was made
  std::string currency;
  std::string channel;              // kPaying and later: the payment's channel
  std::string payment_id;           // the channel's id of that payment, once it answered
  std::string channel_txn_id;       // kPaid: the transaction that paid it
  int64_t check_at_ms = 0;          // open states: when the order closer looks at it next
  int64_t confirm_deadline_ms = 0;  // kConfirming: closed then, whatever the channel says later
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
  int64_t amount_cents = 0;
  std::string currency;
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
  // The activity's cache generation as the decision read it under the stock row's lock: a
  // unit the decision gives back to the cache belongs to that generation.
  int64_t cache_epoch = 0;
  // The draft's (generation, sequence number) had been written already by another reservation:
  // the cache handed the number out twice, so it lost reservations (restored from an older
  // copy). The order is written all the same (the database's stock decides), without the
  // number; the caller closes the generation.
  bool sequence_reused = false;
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

// What a channel's report of a payment did to its order (OrderStore::ApplyPayment).
enum class PaymentEffect {
  kPaid,         // this payment paid the order now
  kUnchanged,    // known before (the same transaction again), or nothing to record
  kRefundOwed,   // money arrived for an order closed or paid by another transaction
  kAmountWrong,  // the amount or currency is not the order's: not a payment of it, owed back
  kRefunded,     // a refund was recorded
  kReplayed,     // the notification id was applied before: nothing changed
};

struct PaymentApplied {
  PaymentEffect effect = PaymentEffect::kUnchanged;
  OrderState state = OrderState::kUnpaid;  // the order's state afterwards
  // A refund of the payment that paid the order closed it: its unit goes back (cache_epoch is
  // the generation of that release).
  bool closed = false;
  int64_t cache_epoch = 0;
};

enum class RefundResult { kRefunded, kAlreadyRefunded };

// A payment owed back that has no refund yet.
struct OwedRefund {
  int64_t order_no = 0;
  std::string channel;
  std::string channel_txn_id;
};

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
  int64_t orders_paying = 0;
  int64_t orders_confirming = 0;
  int64_t orders_paid = 0;
  int64_t orders_cancelled = 0;
  int64_t refunds_required = 0;  // owed and not yet recorded as refunded
  int64_t refunds_done = 0;
  int64_t users_with_two_orders = 0;
  int64_t paid_without_payment = 0;  // PAID orders without a payment of their amount
  int64_t requests_created = 0;
  int64_t requests_failed = 0;
  // Decisions recorded before the cache's reservations were last counted from zero (a load
  // that found the cache empty): requests_created + requests_failed - decided_base are the
  // decisions of reservations the cache still counts.
  int64_t decided_base = 0;
  int64_t cache_epoch = 0;
  int64_t cache_seq = 0;
  // Units cancellations gave back to the database that the current cache generation has not
  // received yet.
  int64_t releases_pending = 0;
};

// Changes to the blacklist (OrderStore::ChangeBlacklist).
struct BlacklistChange {
  std::vector<std::string> add_users;
  std::vector<std::string> remove_users;
  std::vector<std::string> add_addresses;
  std::vector<std::string> remove_addresses;
};

struct BlacklistEntries {
  std::vector<std::string> users;
  std::vector<std::string> addresses;
};

}  // namespace ferry::seckill
