#include <algorithm>
#include <fstream>

#include "seckill_sale.h"

namespace ferry::bench {
namespace {

constexpr std::string_view kProgram = kSeckillProgram;

}  // namespace

bool Sale::Check(SeckillBenchOutcome* o) {
  Findings f;
  TallyPurchases(o, &f);
  TallyBuyers(o, &f);
  f.accepted_written = WriteAccepted(f.accepted_requests);
  Reconcile(o, &f);

  // GetResult: every accepted request must have become an order; the order numbers it gives are
  // this run's own evidence of how many orders there are and whose.
  std::vector<int64_t> order_numbers;
  f.lookups = LookUpOrders(f.accepted_requests, &order_numbers);
  o->lost =
      static_cast<int64_t>(f.accepted_requests.size()) - static_cast<int64_t>(f.lookups.created);
  f.evidence = CheckOrderNumbers(f.accepted_requests, order_numbers);
  o->created_orders = f.evidence.orders;
  o->duplicate_orders = std::max(o->duplicate_orders, f.evidence.users_with_two_orders);
  // Units of cancelled orders are sold again, so only orders still live count against stock.
  const int64_t live_by_get_result = f.evidence.orders - std::max<int64_t>(0, o->cancelled_orders);
  o->oversold = std::max<int64_t>(0, std::max(o->orders, live_by_get_result) - options_.stock);

  PayOrders(f.accepted_requests, order_numbers, &f);
  ReadDatabase(o, &f);
  PrintSummary(*o, f);
  const std::vector<std::string> failures = Failures(*o, f);
  o->passed = failures.empty();
  PrintVerdict(*o, f, failures);
  return o->passed;
}

void Sale::TallyPurchases(SeckillBenchOutcome* o, Findings* f) {
  const CallTotals<1> totals = SumCalls<1>(recorders_);
  f->latency.Merge(totals.latency[0]);
  recorders_.ForEach([&](const Recorder& r) {
    for (size_t i = 0; i < f->answers.size(); ++i) f->answers[i] += r.answers[i].Load();
  });
  o->activity_id = activity_id_;
  o->stock = options_.stock;
  o->purchases = loop_->issued();
  o->answered = f->latency.count();
  o->qps = PerSecond(o->answered, burst_seconds_);
  o->p50_us = ToMicros(f->latency.ValueAtPercentile(50));
  o->p99_us = ToMicros(f->latency.ValueAtPercentile(99));
  o->answers.clear();
  for (size_t i = 0; i < f->answers.size(); ++i) {
    o->answers.emplace_back(std::string(kAnswerNames[i]), f->answers[i]);
  }
  o->errors_by_status = ErrorsByStatus(totals.errors, &o->errors);
  o->settle_ms = settle_ms_;
}

void Sale::TallyBuyers(SeckillBenchOutcome* o, Findings* f) {
  // Who bought, and which request ids were accepted (bit 0: the first id, bit 1: the new one).
  // A retry of the first id must get the first purchase's answer: compared, never merged.
  std::vector<uint8_t> accepted(options_.buyers, 0);
  std::vector<bool> attempted(options_.buyers, false);
  std::vector<uint8_t> first_answer(options_.buyers, kOutcomeNone);
  std::vector<uint8_t> retry_answer(options_.buyers, kOutcomeNone);
  for (uint64_t i = 0; i < o->purchases; ++i) {
    const Attempt attempt = plan_[i];
    attempted[attempt.buyer] = true;
    const uint8_t outcome = outcomes_[i].load(std::memory_order_relaxed);
    if (outcome == kAccepted + 1) {
      accepted[attempt.buyer] |= attempt.kind == AttemptKind::kNewRequest ? 2 : 1;
    }
    if (attempt.kind == AttemptKind::kFirst) first_answer[attempt.buyer] = outcome;
    if (attempt.kind == AttemptKind::kSameRequest) retry_answer[attempt.buyer] = outcome;
  }
  // Errors, calls never answered and the filter's RATE_LIMITED say nothing about the sale.
  const auto is_answer = [](uint8_t outcome) {
    return outcome != kOutcomeNone && outcome != kOutcomeError && outcome != kRateLimited + 1;
  };
  // NOT_STARTED and NOT_FOUND decide nothing either (the provider records neither), and the
  // two attempts may be out at once and arrive in either order: the one answered so may have
  // come first, and the other found the sale open. Two decisions must be the same.
  const auto is_decision = [&](uint8_t outcome) {
    return is_answer(outcome) && outcome != kNotStarted + 1 && outcome != kNotFound + 1;
  };
  o->answer_mismatches = 0;
  for (uint32_t buyer = 0; buyer < options_.buyers; ++buyer) {
    if (is_decision(first_answer[buyer]) && is_decision(retry_answer[buyer]) &&
        first_answer[buyer] != retry_answer[buyer]) {
      if (o->answer_mismatches++ < 3) {
        out_ << "mismatch: request " << RequestId(activity_id_, buyer, false) << " answered "
             << kAnswerNames[first_answer[buyer] - 1U] << ", its retry "
             << kAnswerNames[retry_answer[buyer] - 1U] << "\n";
      }
    }
  }
  f->buyers_attempted = static_cast<int64_t>(std::count(attempted.begin(), attempted.end(), true));
  o->expected_orders = std::min(options_.stock, f->buyers_attempted);
  for (uint32_t buyer = 0; buyer < options_.buyers; ++buyer) {
    if (accepted[buyer] & 1) f->accepted_requests.emplace_back(buyer, false);
    if (accepted[buyer] & 2) f->accepted_requests.emplace_back(buyer, true);
  }
}

bool Sale::WriteAccepted(const std::vector<std::pair<uint32_t, bool>>& accepted_requests) {
  if (options_.accepted_out.empty()) return true;
  std::ofstream file(options_.accepted_out, std::ios::trunc);
  for (const auto& [buyer, second_request] : accepted_requests) {
    file << activity_id_ << ' ' << RequestId(activity_id_, buyer, second_request) << ' '
         << UserId(activity_id_, buyer) << '\n';
  }
  file.close();
  if (!file) {
    err_ << kProgram << ": cannot write --accepted-out " << options_.accepted_out << "\n";
    return false;
  }
  return true;
}

void Sale::Reconcile(SeckillBenchOutcome* o, Findings* f) {
  // Reconcile: the database's own count.
  seckill::ActivityRef ref;
  ref.set_activity_id(activity_id_);
  Result<seckill::ReconcileResponse> reconciled = operator_->Reconcile(ref, admin_options_);
  if (reconciled.ok()) {
    const seckill::ReconcileResponse& rec = f->reconciled.emplace(*reconciled);
    o->orders = rec.orders_unpaid() + rec.orders_confirming() + rec.orders_paid();
    o->cancelled_orders = rec.orders_cancelled();
    f->reconciled_orders = o->orders + o->cancelled_orders;
    o->duplicate_orders = rec.users_with_two_orders();
    o->invariants_hold = rec.invariants_hold();
  } else {
    err_ << kProgram << ": Reconcile: " << reconciled.status() << "\n";
    o->orders = -1;
    o->invariants_hold = false;
  }
}

void Sale::ReadDatabase(SeckillBenchOutcome* o, Findings* f) {
  // --verify-db: the database of record read directly, not through the provider.
  if (options_.database.kind.empty()) return;
  std::vector<std::pair<std::string, std::string>> accepted_ids;  // request id, user id
  accepted_ids.reserve(f->accepted_requests.size());
  for (const auto& [buyer, second_request] : f->accepted_requests) {
    accepted_ids.emplace_back(RequestId(activity_id_, buyer, second_request),
                              UserId(activity_id_, buyer));
  }
  f->database_status =
      ReadSeckillDatabase(options_.database, activity_id_, accepted_ids, &o->database);
  o->database_read = f->database_status.ok();
  if (o->database_read) {
    const SeckillDatabaseFindings& d = o->database;
    o->oversold = std::max(o->oversold, std::max<int64_t>(0, d.unpaid + d.paid - options_.stock));
    o->duplicate_orders = std::max(o->duplicate_orders, d.users_with_two_orders);
  }
}

}  // namespace ferry::bench
