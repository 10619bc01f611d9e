#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "channel_flags.h"
#include "command.h"
#include "ferry/bench/load_options.h"
#include "seckill_database_check.h"
#include "seckill_payments.h"

namespace ferry::bench {

// `ferry-bench seckill`: one flash sale end to end on ferry.seckill.SeckillService
// (build/bin/seckill-server). Creates and preheats a fresh activity, fires --buyers purchases
// (each buyer a distinct user; --dup-ratio of them also retry the same request id or buy again
// with a new one), waits for the orders to settle and checks them with Reconcile, GetResult and,
// with --verify-db, the database itself. The command line's defaults (4 x 32 outstanding,
// --dup-ratio 0.1) make a contended sale with retries in flight; these fields' defaults do not.
extern const Command kSeckillCommand;

struct SeckillBenchOptions {
  LoadOptions load;  // target, conns, depth, threads (the other fields are unused)
  ChannelFlags channel;
  int64_t stock = 0;               // --stock: units on sale
  uint32_t buyers = 0;             // --buyers: distinct users
  double dup_ratio = 0;            // --dup-ratio: fraction of buyers who send a second purchase
  double duration_limit_s = 60;    // --duration-limit: no purchase starts after this
  double settle_timeout_s = 60;    // --settle-timeout: how long orders may take to settle
  uint32_t pay_timeout_s = 86400;  // --pay-timeout-s: long enough that no order closes meanwhile
  int64_t sku_id = 1;              // --sku
  // --accepted-out: where to write every ACCEPTED request as "activity_id request_id user_id"
  // lines (empty: nowhere), so that an outside check can look for each one in the database.
  std::string accepted_out;
  // --verify-db and the --db-* flags: also read the provider's database directly.
  SeckillDatabaseOptions database;
  // --user-token-key ID:SECRET_FILE: every buyer call carries a user token for its buyer, made
  // with this key (the provider's `user_token` filter verifies it); empty id: none.
  std::string user_token_key_id;
  std::string user_token_secret;
  // --operator-key ID:SECRET_FILE: the operator's calls signed with this `auth` key.
  std::string operator_key_id;
  std::string operator_secret;
  SeckillPaymentOptions payments;  // --pay-at and the flags of the payment phase
};

// What one run found; the RESULT line carries the first figures.
struct SeckillBenchOutcome {
  uint64_t qps = 0;  // answered purchases (status OK) per second of the burst
  uint64_t p50_us = 0;
  uint64_t p99_us = 0;
  // Live orders of the activity (unpaid + confirming + paid), as Reconcile counts them.
  int64_t orders = 0;
  int64_t cancelled_orders = 0;  // closed by the pay timeout or CancelOrder: their units came back
  int64_t stock = 0;
  // max(0, live orders - stock), the live orders being the larger of Reconcile's count and the
  // distinct order numbers GetResult gave less the cancelled ones.
  int64_t oversold = 0;
  int64_t duplicate_orders = 0;  // users holding two orders (Reconcile's or GetResult's count)
  int64_t lost = 0;              // ACCEPTED requests not CREATED after settling
  int64_t created_orders = 0;    // distinct order numbers GetResult gave the ACCEPTED requests
  // Retries of a buyer's request id answered differently from the first purchase under it (both
  // answered by the service: errors and RATE_LIMITED are not answers of the sale).
  int64_t answer_mismatches = 0;
  int64_t expected_orders = 0;  // min(stock, distinct buyers who sent a purchase)
  int64_t settle_ms = -1;       // burst end to orders settled; -1: never within the timeout
  int64_t activity_id = 0;
  uint64_t purchases = 0;  // purchase calls issued
  uint64_t answered = 0;   // ... answered with status OK
  uint64_t errors = 0;     // ... failed with a status other than RESOURCE_EXHAUSTED
  // "ACCEPTED", "SOLD_OUT", "ALREADY_JOINED", "NOT_STARTED", "ENDED", "NOT_FOUND",
  // "RATE_LIMITED" (status RESOURCE_EXHAUSTED), in that order.
  std::vector<std::pair<std::string, uint64_t>> answers;
  std::vector<std::pair<std::string, uint64_t>> errors_by_status;  // most frequent first
  // Reconcile's own verdict, reported and required, but never the only evidence: the checks
  // above are computed from the answers this run collected.
  bool invariants_hold = false;
  bool database_read = false;  // --verify-db read the database; `database` holds what it found
  SeckillDatabaseFindings database;
  bool passed = false;
};

// The whole scenario. Writes progress, the summary and the RESULT line (always last on `out`
// when the sale ran) to `out` and reasons for giving up to `err`. Returns the exit code: 0 when
// every check passed, 1 when a check failed or the service could not be set up.
int RunSeckillBench(const SeckillBenchOptions& options, std::ostream& out, std::ostream& err,
                    SeckillBenchOutcome* outcome = nullptr);

}  // namespace ferry::bench
