// LikeLoad's end of run: waiting for the counts to settle, and the check against the truth.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <thread>

#include "ferry/bench/result_line.h"
#include "like_load.h"

namespace ferry::bench {
namespace {

constexpr std::string_view kProgram = "ferry-bench like";
constexpr size_t kMaxIdsPerCall = 100;  // GetCounts' limit
constexpr size_t kReconciled = 3;       // hottest contents given to Reconcile
constexpr auto kPollInterval = std::chrono::milliseconds(20);

bool InRange(int64_t count, const LikeTruth::Tally& tally) {
  return count >= tally.liked && count <= tally.liked + tally.uncertain;
}

}  // namespace

void LikeLoad::Settle(const std::vector<LikeTruth::Tally>& tallies, std::vector<int64_t>* counts) {
  std::vector<uint32_t> written;
  for (uint32_t i = 0; i < tallies.size(); ++i) {
    if (tallies[i].touched) written.push_back(i);
  }
  counts->assign(tallies.size(), -1);
  const Clock::time_point deadline = load_end_ + Seconds(options_.settle_timeout_s);
  Clock::time_point next_note = Clock::now() + std::chrono::seconds(1);
  while (true) {
    size_t wrong = 0;
    Status failed;
    for (size_t begin = 0; begin < written.size(); begin += kMaxIdsPerCall) {
      like::GetCountsRequest request;
      const size_t end = std::min(written.size(), begin + kMaxIdsPerCall);
      for (size_t i = begin; i < end; ++i) request.add_content_ids(ContentId(written[i]));
      Result<like::GetCountsResponse> read = proxies_[0].GetCounts(request, admin_options_);
      if (!read.ok() || read->counts_size() != request.content_ids_size()) {
        failed = read.ok() ? Status(StatusCode::INTERNAL, "GetCounts answered a wrong number")
                           : read.status();
        wrong += end - begin;
        continue;
      }
      for (size_t i = begin; i < end; ++i) {
        (*counts)[written[i]] = read->counts(static_cast<int>(i - begin));
        if (!InRange((*counts)[written[i]], tallies[written[i]])) ++wrong;
      }
    }
    const Clock::time_point now = Clock::now();
    settle_note_ = std::to_string(wrong) + " of " + std::to_string(written.size()) +
                   " contents off the truth" + (failed.ok() ? "" : "; " + failed.ToString());
    if (wrong == 0) {
      settle_ms_ = MillisBetween(load_end_, now);
      return;
    }
    if (now >= deadline) return;
    if (now >= next_note) {
      out_ << kProgram << ": settling: " << settle_note_ << std::endl;
      next_note += std::chrono::seconds(1);
    }
    std::this_thread::sleep_for(kPollInterval);
  }
}

int64_t LikeLoad::ReconcileHottest(const std::vector<LikeTruth::Tally>& tallies) {
  std::vector<uint32_t> order(tallies.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return tallies[a].liked > tallies[b].liked; });
  int64_t violations = 0;
  // Persisting may take longer than the counts (redis-first: the event writers follow Redis),
  // so the same allowance again, from now.
  const Clock::time_point deadline = Clock::now() + Seconds(options_.settle_timeout_s);
  Clock::time_point next_note = Clock::now() + std::chrono::seconds(1);
  for (size_t k = 0; k < std::min(kReconciled, order.size()); ++k) {
    if (!tallies[order[k]].touched) break;
    like::ReconcileRequest request;
    request.set_content_id(ContentId(order[k]));
    while (true) {
      Result<like::ReconcileResponse> reconciled = operator_->Reconcile(request, admin_options_);
      const Clock::time_point now = Clock::now();
      // The record may be away for a while (a database outage): asked again until the deadline.
      if (!reconciled.ok() && reconciled.status().code() == StatusCode::UNAVAILABLE &&
          now < deadline) {
        if (now >= next_note) {
          out_ << kProgram << ": persisting: content " << request.content_id() << ": "
               << reconciled.status() << std::endl;
          next_note += std::chrono::seconds(1);
        }
        std::this_thread::sleep_for(kPollInterval);
        continue;
      }
      if (!reconciled.ok()) {
        out_ << "reconcile " << request.content_id() << ": " << reconciled.status() << "\n";
        ++violations;
        break;
      }
      // Violations are only meaningful once the events are persisted.
      if (reconciled->pending_events() > 0 && now < deadline) {
        if (now >= next_note) {
          out_ << kProgram << ": persisting: content " << request.content_id() << " has "
               << reconciled->pending_events() << " events pending" << std::endl;
          next_note += std::chrono::seconds(1);
        }
        std::this_thread::sleep_for(kPollInterval);
        continue;
      }
      out_ << "reconcile " << request.content_id()
           << ": database_likes=" << reconciled->database_likes()
           << " database_count=" << reconciled->database_count()
           << " cache_count=" << reconciled->cache_count()
           << " pending_events=" << reconciled->pending_events()
           << " truth=" << tallies[order[k]].liked << "\n";
      for (const std::string& violation : reconciled->violations()) {
        out_ << "reconcile violation: " << violation << "\n";
      }
      if (reconciled->pending_events() > 0) {
        out_ << "reconcile violation: events still pending after " << options_.settle_timeout_s
             << " s\n";
      }
      violations += reconciled->violations_size() + (reconciled->pending_events() > 0 ? 1 : 0);
      break;
    }
  }
  persisted_ms_ = MillisBetween(load_end_, Clock::now());
  return violations;
}

bool LikeLoad::Check(LikeBenchOutcome* o) {
  const CallTotals<kKinds> totals = SumCalls<kKinds>(recorders_);
  const LatencyHistogram& set_latency = totals.latency[kSet];
  const LatencyHistogram& get_latency = totals.latency[kGet];
  const LatencyHistogram all = totals.AllLatency();
  o->retries = 0;
  o->rate_limited = 0;
  recorders_.ForEach([&](const Recorder& r) {
    o->retries += r.retries.Load();
    o->rate_limited += r.rate_limited.Load();
  });
  const auto per_second = [this](uint64_t n) { return PerSecond(n, load_seconds_); };
  o->qps = per_second(all.count());
  o->set_qps = per_second(set_latency.count());
  o->get_qps = per_second(get_latency.count());
  o->p50_us = ToMicros(all.ValueAtPercentile(50));
  o->p99_us = ToMicros(all.ValueAtPercentile(99));
  o->set_p99_us = ToMicros(set_latency.ValueAtPercentile(99));
  o->get_p99_us = ToMicros(get_latency.ValueAtPercentile(99));
  o->errors_by_status = ErrorsByStatus(totals.errors, &o->errors);

  std::vector<std::string> failures;
  const bool drained = loop_->finished();
  std::vector<LikeTruth::Tally> tallies;
  std::vector<int64_t> counts;
  if (drained) {
    tallies = truth_.TallyByContent();
    Settle(tallies, &counts);
    o->reconcile_violations = ReconcileHottest(tallies);
  } else {
    // Their answers would still move the truth: no check can be made.
    failures.push_back("calls still out after the drain time");
  }
  o->settle_ms = settle_ms_;
  o->contents_checked = o->mismatched = o->uncertain_pairs = o->likes = 0;
  std::vector<std::string> examples;
  for (uint32_t i = 0; i < tallies.size(); ++i) {
    const LikeTruth::Tally& t = tallies[i];
    if (!t.touched) continue;
    ++o->contents_checked;
    o->likes += t.liked;
    o->uncertain_pairs += t.uncertain;
    if (InRange(counts[i], t)) continue;
    ++o->mismatched;
    if (examples.size() < 3) {
      examples.push_back(
          "content " + std::to_string(ContentId(i)) + " count " + std::to_string(counts[i]) +
          " truth " + std::to_string(t.liked) +
          (t.uncertain > 0 ? " (+" + std::to_string(t.uncertain) + " uncertain)" : ""));
    }
  }
  if (o->mismatched > 0) {
    std::string line = std::to_string(o->mismatched) + " of " +
                       std::to_string(o->contents_checked) + " contents' counts are not the truth";
    for (const std::string& example : examples) line += ", " + example;
    failures.push_back(line);
  }
  if (o->reconcile_violations > 0) {
    failures.push_back("Reconcile: " + std::to_string(o->reconcile_violations) + " violations");
  }
  o->set_calls = set_latency.count();
  o->get_calls = get_latency.count();
  o->passed = failures.empty();

  const auto us = [](std::chrono::nanoseconds v) { return ToMicros(v); };
  out_ << "--- " << kProgram << " summary: " << loop_->issued() << " of " << options_.calls
       << " calls in " << load_seconds_ << " s"
       << (cut_short_ ? " (cut short by --duration-limit)" : "") << "\n"
       << "SetLike: " << o->set_calls << " answered (" << o->set_qps << "/s), " << o->retries
       << " resent; latency us p50=" << us(set_latency.ValueAtPercentile(50))
       << " p90=" << us(set_latency.ValueAtPercentile(90)) << " p99=" << o->set_p99_us
       << " p999=" << us(set_latency.ValueAtPercentile(99.9)) << " max=" << us(set_latency.max())
       << "\n"
       << "GetCounts: " << o->get_calls << " answered (" << o->get_qps
       << "/s); latency us p50=" << us(get_latency.ValueAtPercentile(50))
       << " p90=" << us(get_latency.ValueAtPercentile(90)) << " p99=" << o->get_p99_us
       << " p999=" << us(get_latency.ValueAtPercentile(99.9)) << " max=" << us(get_latency.max())
       << "\n"
       << "rate limited: " << o->rate_limited << ", errors: " << o->errors;
  for (const auto& [name, count] : o->errors_by_status) out_ << " " << name << "=" << count;
  out_ << "\n"
       << "truth: " << o->likes << " likes over " << o->contents_checked << " contents written, "
       << o->uncertain_pairs << " (content, user) uncertain\n";
  if (settle_ms_ >= 0) {
    out_ << "settled: " << settle_ms_ << " ms after the load; the hottest contents reconciled "
         << persisted_ms_ << " ms after it\n";
  } else if (drained) {
    out_ << "settled: not within " << options_.settle_timeout_s << " s (" << settle_note_ << ")\n";
  }
  out_ << "check: " << (o->passed ? "PASS" : "FAIL");
  for (const std::string& failure : failures) out_ << "; " << failure;
  out_ << "\n"
       << ResultLine("LIKE")
              .Add("check", o->passed ? "pass" : "fail")
              .Add("contents", o->contents_checked)
              .Add("likes", o->likes)
              .Add("mismatched", o->mismatched)
              .Add("uncertain", o->uncertain_pairs)
              .Add("settle_ms", o->settle_ms)
       << "\n"
       << ResultLine("RESULT")
              .Add("qps", o->qps)
              .Add("p50_us", o->p50_us)
              .Add("p99_us", o->p99_us)
              .Add("set_qps", o->set_qps)
              .Add("set_p99_us", o->set_p99_us)
              .Add("get_qps", o->get_qps)
              .Add("get_p99_us", o->get_p99_us)
              .Add("errors", o->errors)
              .Add("mismatched", o->mismatched)
       << std::endl;
  return o->passed;
}

}  // namespace ferry::bench
