#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench_clock.h"
#include "bounded_loop.h"
#include "call_recorder.h"
#include "ferry/bench/single_writer_counter.h"
#include "ferry/framework/call_options.h"
#include "seckill.ferry.h"
#include "seckill_answers.h"
#include "seckill_command.h"
#include "seckill_plan.h"

namespace ferry::bench {

inline constexpr std::string_view kSeckillProgram = "ferry-bench seckill";

// One sale of ferry-bench seckill: the activity, the channels, and the purchases made in it.
// Open creates and preheats the activity (seckill_sale.cc), Burst sends the purchases, Settle
// waits for the orders; Check (seckill_check.cc) looks them up (seckill_lookup.cc) and reports
// what it found (seckill_report.cc).
class Sale {
 public:
  // `operator_channel` carries the operator's calls (CreateActivity, Preheat, Reconcile); null:
  // the first of `channels`.
  Sale(const SeckillBenchOptions& options, std::vector<std::shared_ptr<Channel>> channels,
       std::shared_ptr<Channel> operator_channel, std::ostream& out, std::ostream& err);
  // Closing the channels completes whatever is still out as CANCELLED, while this is alive.
  ~Sale() {
    proxies_.clear();
    operator_.reset();
  }

  Status Open();
  void Burst();
  void Settle();
  bool Check(SeckillBenchOutcome* outcome);

 private:
  struct PurchaseSlot {
    uint64_t index = 0;
    Clock::time_point sent;
    seckill::PurchaseRequest request;
    CallOptions options;
  };

  struct Recorder : CallRecorder<> {
    std::array<SingleWriterCounter, kAnswerNames.size()> answers;
  };

  // GetResult's states for the accepted requests.
  struct LookupCounts {
    uint64_t created = 0;
    uint64_t pending = 0;
    uint64_t failed = 0;  // FAILED or unknown
    uint64_t errors = 0;
  };

  // What the order numbers GetResult gave the accepted requests show, independently of the
  // provider's own counts.
  struct OrderEvidence {
    int64_t orders = 0;                 // distinct order numbers
    int64_t users_with_two_orders = 0;  // buyers whose two request ids got two order numbers
    int64_t shared = 0;                 // order numbers given to two buyers
    int64_t unnumbered = 0;             // CREATED with order number 0
  };

  // What Check gathered beyond the outcome, for the summary and the verdict.
  struct Findings {
    LatencyHistogram latency;  // answered purchases
    std::array<uint64_t, kAnswerNames.size()> answers{};
    int64_t buyers_attempted = 0;
    std::vector<std::pair<uint32_t, bool>> accepted_requests;  // buyer, second request id
    bool accepted_written = false;
    std::optional<seckill::ReconcileResponse> reconciled;  // empty: Reconcile failed
    int64_t reconciled_orders = -1;                        // unpaid + paid + cancelled
    LookupCounts lookups;
    OrderEvidence evidence;
    Status database_status;  // of --verify-db's read
    SeckillPaymentFindings payments;
  };

  // `base` with a user token for `user` when --user-token-key is set.
  CallOptions AsBuyer(const CallOptions& base, const std::string& user) const;
  seckill::SeckillServiceProxy& ProxyOf(uint32_t slot) {
    return proxies_[slot / options_.load.depth];
  }
  void IssuePurchase(uint64_t index, uint32_t slot);
  void OnPurchase(PurchaseSlot& slot, uint32_t slot_number,
                  const Result<seckill::PurchaseResponse>& result);

  // Check's steps, in order.
  void TallyPurchases(SeckillBenchOutcome* o, Findings* f);
  // Who bought, which request ids were accepted, and retries compared with first purchases.
  void TallyBuyers(SeckillBenchOutcome* o, Findings* f);
  // Writes the ACCEPTED requests to --accepted-out; false (with the reason on `err`) when the
  // file cannot be written.
  bool WriteAccepted(const std::vector<std::pair<uint32_t, bool>>& accepted_requests);
  void Reconcile(SeckillBenchOutcome* o, Findings* f);
  // GetResult of every accepted request, `window` at a time: the order number of each
  // (-1: not CREATED) goes to `order_numbers`.
  LookupCounts LookUpOrders(const std::vector<std::pair<uint32_t, bool>>& accepted_requests,
                            std::vector<int64_t>* order_numbers);
  static OrderEvidence CheckOrderNumbers(
      const std::vector<std::pair<uint32_t, bool>>& accepted_requests,
      const std::vector<int64_t>& order_numbers);
  // The payment phase (seckill_payments.cc): pays --pay-ratio of the orders at --pay-at, probes
  // the channel's replay and wrong amount, and waits out the pay timeout.
  void PayOrders(const std::vector<std::pair<uint32_t, bool>>& accepted_requests,
                 const std::vector<int64_t>& order_numbers, Findings* f);
  void ProbeNotifications(int64_t paid_order, const std::string& paid_user, int64_t unpaid_order,
                          const std::string& unpaid_user, SeckillPaymentFindings* p);
  void AwaitCloses(SeckillPaymentFindings* p);
  struct ReconcileResponseOrError {
    bool ok = false;
    seckill::ReconcileResponse response;
  };
  ReconcileResponseOrError ReconcileNow();
  // The order as its buyer sees it (GetOrder); state "" when it cannot be read.
  std::string OrderState(int64_t order_no, const std::string& user);
  void ReadDatabase(SeckillBenchOutcome* o, Findings* f);
  void PrintSummary(const SeckillBenchOutcome& o, const Findings& f);
  std::vector<std::string> Failures(const SeckillBenchOutcome& o, const Findings& f) const;
  void PrintVerdict(const SeckillBenchOutcome& o, const Findings& f,
                    const std::vector<std::string>& failures);

  const SeckillBenchOptions& options_;
  std::ostream& out_;
  std::ostream& err_;
  const uint32_t window_;
  const CallOptions admin_options_;
  const CallOptions call_options_;  // the channel's default timeout (--timeout-ms)
  std::vector<seckill::SeckillServiceProxy> proxies_;
  std::unique_ptr<seckill::SeckillServiceProxy> operator_;

  int64_t activity_id_ = 0;
  std::vector<Attempt> plan_;
  uint32_t same_request_ = 0;
  uint32_t new_request_ = 0;
  std::unique_ptr<std::atomic<uint8_t>[]> outcomes_;
  std::unique_ptr<PurchaseSlot[]> slots_;
  std::unique_ptr<BoundedLoop> loop_;
  PerThread<Recorder> recorders_;
  double burst_seconds_ = 0;
  bool cut_short_ = false;
  Clock::time_point burst_end_;
  int64_t settle_ms_ = -1;
  std::string settle_note_;
};

}  // namespace ferry::bench
