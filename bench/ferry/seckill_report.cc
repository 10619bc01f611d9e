#include <cmath>

#include "ferry/bench/result_line.h"
#include "seckill_sale.h"

namespace ferry::bench {
namespace {

constexpr std::string_view kProgram = kSeckillProgram;

}  // namespace

void Sale::PrintSummary(const SeckillBenchOutcome& o, const Findings& f) {
  const auto us = [](std::chrono::nanoseconds v) { return ToMicros(v); };
  out_ << "--- " << kProgram << " summary: activity " << activity_id_ << ", " << o.purchases
       << " of " << plan_.size() << " purchases sent in " << burst_seconds_ << " s"
       << (cut_short_ ? " (cut short by --duration-limit)" : "") << "\n"
       << "purchases: " << o.answered << " answered, " << f.answers[kRateLimited]
       << " rate limited, " << o.errors << " errors; qps (answered): " << o.qps << "\n"
       << "latency us: p50=" << o.p50_us << " p90=" << us(f.latency.ValueAtPercentile(90))
       << " p99=" << o.p99_us << " p999=" << us(f.latency.ValueAtPercentile(99.9))
       << " min=" << us(f.latency.min()) << " mean=" << us(f.latency.mean())
       << " max=" << us(f.latency.max()) << "\n"
       << "answers:";
  for (const auto& [name, count] : o.answers) out_ << " " << name << "=" << count;
  out_ << "\n";
  if (!o.errors_by_status.empty()) {
    out_ << "errors by status:";
    for (const auto& [name, count] : o.errors_by_status) out_ << " " << name << "=" << count;
    out_ << "\n";
  }
  if (settle_ms_ >= 0) {
    out_ << "settled: " << settle_ms_ << " ms after the burst (" << settle_note_ << ")\n";
  } else {
    out_ << "settled: not within " << options_.settle_timeout_s << " s (" << settle_note_ << ")\n";
  }
  if (f.reconciled) {
    const seckill::ReconcileResponse& rec = *f.reconciled;
    out_ << "reconcile: orders=" << o.orders << " (unpaid " << rec.orders_unpaid() << ", paid "
         << rec.orders_paid() << ", cancelled " << rec.orders_cancelled()
         << ") database_stock=" << rec.database_stock() << " cache_stock=" << rec.cache_stock()
         << " reservations=" << rec.reservations()
         << " without_order=" << rec.reservations_without_order()
         << " users_with_two_orders=" << rec.users_with_two_orders()
         << " invariants_hold=" << (rec.invariants_hold() ? "true" : "false") << "\n";
    for (const std::string& violation : rec.violations()) {
      out_ << "reconcile violation: " << violation << "\n";
    }
  }
  out_ << "get-result: " << f.accepted_requests.size()
       << " accepted requests: " << f.lookups.created << " CREATED, " << f.lookups.pending
       << " PENDING, " << f.lookups.failed << " FAILED or unknown, " << f.lookups.errors
       << " errors; " << f.evidence.orders << " distinct orders, "
       << f.evidence.users_with_two_orders << " users with two, " << f.evidence.shared
       << " shared by two users, " << f.evidence.unnumbered << " without an order number\n";
  if (!options_.database.kind.empty()) {
    const SeckillDatabaseFindings& d = o.database;
    if (o.database_read) {
      out_ << "database (" << options_.database.kind << "): orders=" << d.unpaid + d.paid
           << " (unpaid " << d.unpaid << ", paid " << d.paid << ", cancelled " << d.cancelled
           << ") remaining=" << d.remaining << " of " << d.initial_stock
           << " users_with_two_orders=" << d.users_with_two_orders
           << " accepted_without_order=" << d.accepted_without_order
           << " accepted_order_of_another_user=" << d.accepted_order_of_another_user << "\n";
    } else {
      out_ << "database (" << options_.database.kind << "): " << f.database_status << "\n";
    }
  }
  PrintPayments(out_, f.payments);
  if (same_request_ > 0) {
    out_ << "retries: " << o.answer_mismatches
         << " answered differently from the first purchase under their request id\n";
  }
}

std::vector<std::string> Sale::Failures(const SeckillBenchOutcome& o, const Findings& f) const {
  std::vector<std::string> failures;
  // With no order cancelled every unit is sold once: exactly min(stock, buyers) live orders.
  // Cancelled units may be sold again or not (the sale can run out of buyers first).
  if (o.cancelled_orders == 0 && o.orders != o.expected_orders) {
    failures.push_back("orders " + std::to_string(o.orders) + " != min(stock " +
                       std::to_string(options_.stock) + ", buyers " +
                       std::to_string(f.buyers_attempted) +
                       ") = " + std::to_string(o.expected_orders));
  }
  if (o.oversold > 0) failures.push_back("oversold by " + std::to_string(o.oversold));
  if (o.duplicate_orders > 0) {
    failures.push_back(std::to_string(o.duplicate_orders) + " users hold two orders");
  }
  if (o.lost > 0) {
    failures.push_back(std::to_string(o.lost) + " accepted requests did not become orders");
  }
  if (o.answer_mismatches > 0) {
    failures.push_back(std::to_string(o.answer_mismatches) +
                       " retries got another answer than the first purchase");
  }
  if (f.evidence.shared > 0) {
    failures.push_back(std::to_string(f.evidence.shared) + " orders given to two users");
  }
  if (f.evidence.unnumbered > 0) {
    failures.push_back(std::to_string(f.evidence.unnumbered) + " CREATED without an order number");
  }
  // Every order of this fresh activity comes from a request this run sent and looked up.
  if (f.reconciled.has_value() && o.lost == 0 && f.reconciled_orders != f.evidence.orders) {
    failures.push_back("Reconcile counts " + std::to_string(f.reconciled_orders) +
                       " orders, GetResult gave " + std::to_string(f.evidence.orders));
  }
  if (!options_.database.kind.empty()) {
    const SeckillDatabaseFindings& d = o.database;
    if (!o.database_read) {
      failures.push_back("--verify-db: " + f.database_status.ToString());
    } else {
      if (d.unpaid + d.paid + d.remaining != d.initial_stock) {
        failures.push_back("database: live orders " + std::to_string(d.unpaid + d.paid) +
                           " + remaining " + std::to_string(d.remaining) + " != stock " +
                           std::to_string(d.initial_stock));
      }
      if (d.accepted_without_order > 0) {
        failures.push_back("database: " + std::to_string(d.accepted_without_order) +
                           " accepted requests have no order");
      }
      if (d.accepted_order_of_another_user > 0) {
        failures.push_back("database: " + std::to_string(d.accepted_order_of_another_user) +
                           " accepted requests' orders belong to another user");
      }
      if (o.lost == 0 && d.unpaid + d.paid + d.cancelled != f.evidence.orders) {
        failures.push_back("database holds " + std::to_string(d.unpaid + d.paid + d.cancelled) +
                           " orders, GetResult gave " + std::to_string(f.evidence.orders));
      }
    }
  }
  if (f.reconciled.has_value() && !o.invariants_hold)
    failures.push_back("Reconcile: invariants broken");
  if (!f.reconciled.has_value()) failures.push_back("Reconcile failed");
  if (!f.accepted_written) failures.push_back("--accepted-out not written");
  for (std::string& failure : PaymentFailures(f.payments, f.evidence.orders, options_.stock)) {
    failures.push_back(std::move(failure));
  }
  return failures;
}

void Sale::PrintVerdict(const SeckillBenchOutcome& o, const Findings& f,
                        const std::vector<std::string>& failures) {
  out_ << "check: " << (o.passed ? "PASS" : "FAIL");
  for (const std::string& failure : failures) out_ << "; " << failure;
  out_ << "\n"
       << ResultLine("SECKILL")
              .Add("settle_ms", o.settle_ms)
              .Add("expected_orders", o.expected_orders)
              .Add("accepted", f.answers[kAccepted])
              .Add("accepted_requests", f.accepted_requests.size())
              .Add("answered", o.answered)
              .Add("errors", o.errors)
              .Add("burst_ms", std::llround(burst_seconds_ * 1000))
              .Add("check", o.passed ? "pass" : "fail")
       << "\n"
       << ResultLine("RESULT")
              .Add("qps", o.qps)
              .Add("p50_us", o.p50_us)
              .Add("p99_us", o.p99_us)
              .Add("orders", o.orders)
              .Add("stock", o.stock)
              .Add("oversold", o.oversold)
              .Add("duplicate_orders", o.duplicate_orders)
              .Add("lost", o.lost)
       << std::endl;
}

}  // namespace ferry::bench
