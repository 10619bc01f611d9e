#include "seckill_command.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <limits>
#include <memory>
#include <mutex>
#include <random>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "bounded_loop.h"
#include "ferry/bench/flag_parser.h"
#include "ferry/bench/latency_histogram.h"
#include "ferry/bench/load_report.h"
#include "ferry/bench/single_writer_counter.h"
#include "ferry/framework/call_options.h"
#include "ferry/plugins/user_token.h"
#include "per_thread.h"
#include "seckill.ferry.h"

namespace ferry::bench {
namespace {

using Clock = std::chrono::steady_clock;
using seckill::SeckillServiceProxy;

constexpr std::string_view kProgram = "ferry-bench seckill";
constexpr std::string_view kSeckillService = "ferry.seckill.SeckillService";
constexpr uint32_t kDefaultConns = 4;
constexpr uint32_t kDefaultDepth = 32;
constexpr double kDefaultDupRatio = 0.1;

// The answers a purchase is tallied under, indexed by PurchaseAnswer - 1 (ACCEPTED = 1 ...
// RATE_LIMITED = 7). RATE_LIMITED never comes in a response: the ratelimit filter answers with
// status RESOURCE_EXHAUSTED, which is counted here too.
constexpr std::array<std::string_view, 7> kAnswerNames = {
    "ACCEPTED", "SOLD_OUT", "ALREADY_JOINED", "NOT_STARTED", "ENDED", "NOT_FOUND", "RATE_LIMITED"};
constexpr size_t kAccepted = 0;
constexpr size_t kNotStarted = 3;
constexpr size_t kNotFound = 5;
constexpr size_t kRateLimited = 6;

// Errors by StatusCode (OK unused); codes beyond OVERLOADED count as UNKNOWN. BAD_ANSWER: an OK
// response whose answer is not one of the above.
constexpr size_t kStatusCodes = static_cast<size_t>(StatusCode::OVERLOADED) + 1;
constexpr size_t kBadAnswer = kStatusCodes;
constexpr std::string_view kBadAnswerName = "BAD_ANSWER";

// What became of each planned purchase: 0 not answered (never sent, or still out), 1..7 the
// answer (kAnswerNames index + 1), kOutcomeError a failed call.
constexpr uint8_t kOutcomeNone = 0;
constexpr uint8_t kOutcomeError = 255;

enum class AttemptKind : uint8_t {
  kFirst,        // the buyer's purchase
  kSameRequest,  // the same request again (a client retry): must get the same answer
  kNewRequest,   // another purchase under a new request id: must not make a second order
};

struct Attempt {
  uint32_t buyer;
  AttemptKind kind;
};

int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

double SecondsBetween(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

Clock::duration Seconds(double seconds) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

// Every buyer once, and floor(buyers * ratio) of them, spread evenly, a second time: alternately
// the same request again and a new request. Shuffled, so that a second purchase may come before,
// after or while the first is in flight.
std::vector<Attempt> MakePlan(uint32_t buyers, double ratio, uint64_t seed, uint32_t* same,
                              uint32_t* again) {
  std::vector<Attempt> plan;
  plan.reserve(buyers + static_cast<size_t>(std::floor(buyers * ratio)) + 1);
  *same = 0;
  *again = 0;
  for (uint32_t i = 0; i < buyers; ++i) {
    plan.push_back({i, AttemptKind::kFirst});
    if (std::floor((i + 1.0) * ratio) > std::floor(i * ratio)) {
      const bool same_request = (*same + *again) % 2 == 0;
      plan.push_back({i, same_request ? AttemptKind::kSameRequest : AttemptKind::kNewRequest});
      ++(same_request ? *same : *again);
    }
  }
  std::mt19937_64 random(seed);
  std::shuffle(plan.begin(), plan.end(), random);
  return plan;
}

// Ids are unique per activity, so runs against the same provider never collide (the provider
// remembers answers by request id alone).
std::string UserId(int64_t activity_id, uint32_t buyer) {
  return "sk" + std::to_string(activity_id) + "-u" + std::to_string(buyer);
}
std::string RequestId(int64_t activity_id, uint32_t buyer, bool second_request) {
  return "sk" + std::to_string(activity_id) + "-r" + std::to_string(buyer) +
         (second_request ? "-again" : "");
}

// What one thread records; it is the only writer, so recording takes no lock.
struct Recorder {
  LatencyHistogram latency;  // answered purchases
  std::array<SingleWriterCounter, kAnswerNames.size()> answers;
  std::array<SingleWriterCounter, kStatusCodes + 1> errors;  // by code, then BAD_ANSWER
  SingleWriterCounter completed;                             // any outcome
};

using Recorders = PerThread<Recorder>;

std::string_view ErrorName(size_t index) {
  return index == kBadAnswer ? kBadAnswerName : StatusCodeName(static_cast<StatusCode>(index));
}

// One sale: the activity, the channels, and the purchases made in it.
class Sale {
 public:
  Sale(const SeckillBenchOptions& options, std::vector<std::shared_ptr<Channel>> channels,
       std::ostream& out, std::ostream& err)
      : options_(options),
        out_(out),
        err_(err),
        window_(options.load.conns * options.load.depth),
        admin_options_{.timeout = std::chrono::milliseconds(
                           std::max<uint32_t>(options.channel.timeout_ms, 120'000))} {
    for (auto& channel : channels) proxies_.emplace_back(std::move(channel));
  }

  // Closing the channels completes whatever is still out as CANCELLED, while this is alive.
  ~Sale() { proxies_.clear(); }

  Status Open();
  void Burst();
  // Writes the ACCEPTED requests to --accepted-out; false (with the reason on `err`) when the
  // file cannot be written.
  bool WriteAccepted(const std::vector<std::pair<uint32_t, bool>>& accepted_requests);
  void Settle();
  bool Check(SeckillBenchOutcome* outcome);

 private:
  struct PurchaseSlot {
    uint64_t index = 0;
    Clock::time_point sent;
    seckill::PurchaseRequest request;
    CallOptions options;
  };

  // `base` with a user token for `user` when --user-token-key is set.
  CallOptions AsBuyer(const CallOptions& base, const std::string& user) const;

  void IssuePurchase(uint64_t index, uint32_t slot);
  void OnPurchase(PurchaseSlot& slot, uint32_t slot_number,
                  const Result<seckill::PurchaseResponse>& result);
  ProgressSample Progress(double elapsed, double interval, uint64_t* last_completed);
  SeckillServiceProxy& ProxyOf(uint32_t slot) { return proxies_[slot / options_.load.depth]; }

  const SeckillBenchOptions& options_;
  std::ostream& out_;
  std::ostream& err_;
  const uint32_t window_;
  const CallOptions admin_options_;
  const CallOptions call_options_;  // the channel's default timeout (--timeout-ms)
  std::vector<SeckillServiceProxy> proxies_;

  int64_t activity_id_ = 0;
  std::vector<Attempt> plan_;
  uint32_t same_request_ = 0;
  uint32_t new_request_ = 0;
  std::unique_ptr<std::atomic<uint8_t>[]> outcomes_;
  std::unique_ptr<PurchaseSlot[]> slots_;
  std::unique_ptr<BoundedLoop> loop_;
  Recorders recorders_;
  double burst_seconds_ = 0;
  bool cut_short_ = false;
  Clock::time_point burst_end_;
  int64_t settle_ms_ = -1;
  std::string settle_note_;
};

Status Sale::Open() {
  const int64_t now = WallMs();
  // Ends well after everything this run does, so no purchase answers ENDED.
  const auto lifetime_ms = static_cast<int64_t>(
      std::max(600.0, options_.duration_limit_s + options_.settle_timeout_s + 120) * 1000);
  seckill::CreateActivityRequest create;
  seckill::Activity& activity = *create.mutable_activity();
  activity.set_sku_id(options_.sku_id);
  activity.set_name("ferry-bench seckill " + std::to_string(now));
  activity.set_stock(options_.stock);
  activity.set_start_time_ms(now - 1000);
  activity.set_end_time_ms(now + lifetime_ms);
  activity.set_price_cents(100);
  activity.set_pay_timeout_s(options_.pay_timeout_s);
  Result<seckill::CreateActivityResponse> created =
      proxies_[0].CreateActivity(create, admin_options_);
  if (!created.ok()) {
    return Status(created.status().code(), "CreateActivity: " + created.status().message());
  }
  activity_id_ = created->activity_id();

  seckill::ActivityRef ref;
  ref.set_activity_id(activity_id_);
  Result<seckill::PreheatResponse> preheated = proxies_[0].Preheat(ref, admin_options_);
  if (!preheated.ok()) {
    return Status(preheated.status().code(), "Preheat of activity " + std::to_string(activity_id_) +
                                                 ": " + preheated.status().message());
  }
  if (preheated->cached_stock() != options_.stock) {
    return Status(StatusCode::INTERNAL, "Preheat of activity " + std::to_string(activity_id_) +
                                            " left stock " +
                                            std::to_string(preheated->cached_stock()) +
                                            ", expected " + std::to_string(options_.stock));
  }
  // Every channel connects before the clock starts; an unreachable provider is reported as such.
  for (size_t i = 0; i < proxies_.size(); ++i) {
    Result<seckill::GetActivityResponse> probed = proxies_[i].GetActivity(ref, admin_options_);
    if (!probed.ok()) {
      return Status(probed.status().code(),
                    "channel " + std::to_string(i) + ": GetActivity: " + probed.status().message());
    }
  }
  out_ << kProgram << ": activity " << activity_id_ << " sku " << options_.sku_id
       << " created and preheated: stock " << options_.stock << ", window [now-1s, now+"
       << lifetime_ms / 1000 << "s), pay timeout " << options_.pay_timeout_s << " s" << std::endl;
  return Status::Ok();
}

void Sale::IssuePurchase(uint64_t index, uint32_t slot_number) {
  PurchaseSlot& slot = slots_[slot_number];
  const Attempt attempt = plan_[index];
  slot.index = index;
  slot.request.set_user_id(UserId(activity_id_, attempt.buyer));
  slot.request.set_request_id(
      RequestId(activity_id_, attempt.buyer, attempt.kind == AttemptKind::kNewRequest));
  slot.options = AsBuyer(call_options_, slot.request.user_id());
  slot.sent = Clock::now();
  ProxyOf(slot_number)
      .PurchaseWithCallback(
          slot.request,
          [this, &slot, slot_number](Result<seckill::PurchaseResponse> result) {
            OnPurchase(slot, slot_number, result);
          },
          slot.options);
}

CallOptions Sale::AsBuyer(const CallOptions& base, const std::string& user) const {
  CallOptions options = base;
  if (options_.user_token_key_id.empty()) return options;
  // Good for the whole run: the burst, settling and the checks after it.
  const int64_t now_s = WallMs() / 1000;
  const auto ttl_s =
      static_cast<int64_t>(options_.duration_limit_s + 2 * options_.settle_timeout_s) + 3600;
  options.attachments[std::string(plugins::kUserTokenAttachment)] = plugins::MakeUserToken(
      options_.user_token_key_id, options_.user_token_secret, user, now_s, now_s + ttl_s);
  return options;
}

void Sale::OnPurchase(PurchaseSlot& slot, uint32_t slot_number,
                      const Result<seckill::PurchaseResponse>& result) {
  const auto latency = Clock::now() - slot.sent;
  Recorder& r = recorders_.Mine();
  uint8_t outcome = kOutcomeError;
  if (result.ok()) {
    const int answer = result->answer();
    if (answer >= 1 && answer <= static_cast<int>(kAnswerNames.size())) {
      r.answers[static_cast<size_t>(answer - 1)].Add(1);
      r.latency.Record(latency);
      outcome = static_cast<uint8_t>(answer);
    } else {
      r.errors[kBadAnswer].Add(1);
    }
  } else if (result.status().code() == StatusCode::RESOURCE_EXHAUSTED) {
    r.answers[kRateLimited].Add(1);
    outcome = static_cast<uint8_t>(kRateLimited + 1);
  } else {
    const auto code = static_cast<size_t>(result.status().code());
    r.errors[code < kStatusCodes ? code : static_cast<size_t>(StatusCode::UNKNOWN)].Add(1);
  }
  outcomes_[slot.index].store(outcome, std::memory_order_relaxed);
  r.completed.Add(1);
  loop_->Next(slot_number);
}

ProgressSample Sale::Progress(double elapsed, double interval, uint64_t* last_completed) {
  ProgressSample sample;
  sample.elapsed_seconds = elapsed;
  LatencyHistogram merged;
  uint64_t completed = 0;
  recorders_.ForEach([&](const Recorder& r) {
    completed += r.completed.Load();
    for (const SingleWriterCounter& e : r.errors) sample.errors += e.Load();
    merged.Merge(r.latency);
  });
  sample.interval_qps =
      interval > 0 ? static_cast<double>(completed - *last_completed) / interval : 0;
  *last_completed = completed;
  sample.p99 = merged.ValueAtPercentile(99);
  return sample;
}

void Sale::Burst() {
  const uint64_t seed = static_cast<uint64_t>(activity_id_) * 0x9E3779B97F4A7C15ull;
  plan_ = MakePlan(options_.buyers, options_.dup_ratio, seed, &same_request_, &new_request_);
  outcomes_ = std::make_unique<std::atomic<uint8_t>[]>(plan_.size());
  for (size_t i = 0; i < plan_.size(); ++i) outcomes_[i].store(kOutcomeNone);
  slots_ = std::make_unique<PurchaseSlot[]>(window_);
  for (uint32_t i = 0; i < window_; ++i) {
    slots_[i].request.set_activity_id(activity_id_);
    slots_[i].request.set_sku_id(options_.sku_id);
  }
  loop_ = std::make_unique<BoundedLoop>(
      plan_.size(), window_, [this](uint64_t index, uint32_t slot) { IssuePurchase(index, slot); });
  out_ << kProgram << ": " << options_.buyers << " buyers (" << same_request_
       << " retry the same request, " << new_request_
       << " buy again with a new request id): " << plan_.size() << " purchases, "
       << options_.load.conns << " conns x " << options_.load.depth << " outstanding, at most "
       << options_.duration_limit_s << " s" << std::endl;

  const LoadReport report(std::string{kProgram}, options_.load, out_);
  const Clock::time_point start = Clock::now();
  Clock::time_point deadline = start + Seconds(options_.duration_limit_s);
  // Launching from a thread of its own keeps this one free to print progress and end the run
  // even if every call fails synchronously.
  std::thread launcher([this] { loop_->Start(); });
  Clock::time_point next_tick = start + std::chrono::seconds(1);
  Clock::time_point last_tick = start;
  uint64_t last_completed = 0;
  bool draining = false;
  while (!loop_->WaitUntil(std::min(next_tick, deadline))) {
    const Clock::time_point now = Clock::now();
    if (now >= deadline) {
      if (draining) break;  // calls still out after the drain time: given up on
      loop_->Stop();
      cut_short_ = true;
      draining = true;
      out_ << kProgram << ": --duration-limit reached after " << loop_->issued() << " of "
           << plan_.size() << " purchases; waiting for the ones in flight" << std::endl;
      deadline =
          now + std::chrono::milliseconds(options_.channel.timeout_ms) + std::chrono::seconds(1);
    }
    if (now >= next_tick) {
      report.PrintProgress(
          Progress(SecondsBetween(start, now), SecondsBetween(last_tick, now), &last_completed));
      last_tick = now;
      next_tick += std::chrono::seconds(1);
    }
  }
  burst_end_ = Clock::now();
  burst_seconds_ = SecondsBetween(start, burst_end_);
  launcher.join();
}

void Sale::Settle() {
  // All orders are written once the database has given out as many units as the cache has:
  // every accepted reservation then has its order (nothing is released while the pay timeout
  // runs). The embedded backend writes orders synchronously and has no cache (-1).
  seckill::ActivityRef ref;
  ref.set_activity_id(activity_id_);
  const Clock::time_point deadline = burst_end_ + Seconds(options_.settle_timeout_s);
  Clock::time_point next_note = Clock::now() + std::chrono::seconds(1);
  while (true) {
    Result<seckill::GetActivityResponse> activity = proxies_[0].GetActivity(ref, admin_options_);
    const Clock::time_point now = Clock::now();
    if (activity.ok()) {
      settle_note_ = "database stock " + std::to_string(activity->database_stock()) +
                     ", cache stock " + std::to_string(activity->cache_stock());
      if (activity->cache_stock() >= 0) {
        const int64_t unwritten = activity->database_stock() - activity->cache_stock();
        settle_note_ = std::to_string(unwritten) + " accepted reservations without an order (" +
                       settle_note_ + ")";
      }
      if (activity->cache_stock() < 0 || activity->cache_stock() == activity->database_stock()) {
        settle_ms_ =
            std::chrono::duration_cast<std::chrono::milliseconds>(now - burst_end_).count();
        return;
      }
    } else {
      settle_note_ = "GetActivity: " + activity.status().ToString();
    }
    if (now >= deadline) {
      err_ << kProgram << ": orders not settled after " << options_.settle_timeout_s << " s ("
           << settle_note_ << ")\n";
      return;
    }
    if (now >= next_note) {
      out_ << kProgram << ": settling: " << settle_note_ << std::endl;
      next_note += std::chrono::seconds(1);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
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

// GetResult of every accepted request, `window` at a time.
struct ResultCounts {
  std::atomic<uint64_t> created{0};
  std::atomic<uint64_t> pending{0};
  std::atomic<uint64_t> failed{0};
  std::atomic<uint64_t> errors{0};
};

// What the order numbers GetResult gave the accepted requests show, independently of the
// provider's own counts.
struct OrderEvidence {
  int64_t orders = 0;                 // distinct order numbers
  int64_t users_with_two_orders = 0;  // buyers whose two request ids got two order numbers
  int64_t shared = 0;                 // order numbers given to two buyers
  int64_t unnumbered = 0;             // CREATED with order number 0
};

OrderEvidence CheckOrderNumbers(const std::vector<std::pair<uint32_t, bool>>& accepted_requests,
                                const std::vector<int64_t>& order_numbers) {
  OrderEvidence evidence;
  std::unordered_map<int64_t, uint32_t> owner;        // order number -> buyer
  std::unordered_map<uint32_t, int64_t> first_order;  // buyer -> an order number
  std::unordered_set<uint32_t> doubled;
  for (size_t i = 0; i < accepted_requests.size(); ++i) {
    const int64_t order_no = order_numbers[i];
    const uint32_t buyer = accepted_requests[i].first;
    if (order_no < 0) continue;  // not CREATED: counted as lost
    if (order_no == 0) {
      ++evidence.unnumbered;
      continue;
    }
    const auto [it, inserted] = owner.emplace(order_no, buyer);
    if (!inserted) {
      if (it->second != buyer) ++evidence.shared;
      continue;
    }
    const auto [mine, first] = first_order.emplace(buyer, order_no);
    if (!first && mine->second != order_no) doubled.insert(buyer);
  }
  evidence.orders = static_cast<int64_t>(owner.size());
  evidence.users_with_two_orders = static_cast<int64_t>(doubled.size());
  return evidence;
}

bool Sale::Check(SeckillBenchOutcome* o) {
  // The purchases' tallies.
  LatencyHistogram latency;
  std::array<uint64_t, kAnswerNames.size()> answers{};
  std::array<uint64_t, kStatusCodes + 1> errors{};
  recorders_.ForEach([&](const Recorder& r) {
    latency.Merge(r.latency);
    for (size_t i = 0; i < answers.size(); ++i) answers[i] += r.answers[i].Load();
    for (size_t i = 0; i < errors.size(); ++i) errors[i] += r.errors[i].Load();
  });
  o->activity_id = activity_id_;
  o->stock = options_.stock;
  o->purchases = loop_->issued();
  o->answered = latency.count();
  o->qps =
      burst_seconds_ > 0
          ? static_cast<uint64_t>(std::llround(static_cast<double>(o->answered) / burst_seconds_))
          : 0;
  o->p50_us = ToMicros(latency.ValueAtPercentile(50));
  o->p99_us = ToMicros(latency.ValueAtPercentile(99));
  o->answers.clear();
  for (size_t i = 0; i < answers.size(); ++i) {
    o->answers.emplace_back(std::string(kAnswerNames[i]), answers[i]);
  }
  o->errors = 0;
  o->errors_by_status.clear();
  for (size_t i = 0; i < errors.size(); ++i) {
    if (errors[i] == 0) continue;
    o->errors += errors[i];
    o->errors_by_status.emplace_back(std::string(ErrorName(i)), errors[i]);
  }
  std::stable_sort(o->errors_by_status.begin(), o->errors_by_status.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  o->settle_ms = settle_ms_;

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
  const auto buyers_attempted =
      static_cast<int64_t>(std::count(attempted.begin(), attempted.end(), true));
  o->expected_orders = std::min(options_.stock, buyers_attempted);
  std::vector<std::pair<uint32_t, bool>> accepted_requests;  // buyer, second request id
  for (uint32_t buyer = 0; buyer < options_.buyers; ++buyer) {
    if (accepted[buyer] & 1) accepted_requests.emplace_back(buyer, false);
    if (accepted[buyer] & 2) accepted_requests.emplace_back(buyer, true);
  }

  const bool accepted_written = WriteAccepted(accepted_requests);

  // Reconcile: the database's own count.
  seckill::ActivityRef ref;
  ref.set_activity_id(activity_id_);
  Result<seckill::ReconcileResponse> reconciled = proxies_[0].Reconcile(ref, admin_options_);
  bool reconcile_ok = reconciled.ok();
  int64_t reconciled_orders = -1;  // unpaid + paid + cancelled
  if (reconcile_ok) {
    const seckill::ReconcileResponse& rec = *reconciled;
    o->orders = rec.orders_unpaid() + rec.orders_confirming() + rec.orders_paid();
    o->cancelled_orders = rec.orders_cancelled();
    reconciled_orders = o->orders + o->cancelled_orders;
    o->duplicate_orders = rec.users_with_two_orders();
    o->invariants_hold = rec.invariants_hold();
  } else {
    err_ << kProgram << ": Reconcile: " << reconciled.status() << "\n";
    o->orders = -1;
    o->invariants_hold = false;
  }

  // GetResult: every accepted request must have become an order; the order numbers it gives are
  // this run's own evidence of how many orders there are and whose.
  ResultCounts counts;
  std::vector<int64_t> order_numbers(accepted_requests.size(), -1);  // -1: not CREATED
  auto requests = std::make_unique<seckill::GetResultRequest[]>(window_);
  std::unique_ptr<BoundedLoop> checker;
  checker = std::make_unique<BoundedLoop>(
      accepted_requests.size(), window_, [&](uint64_t index, uint32_t slot) {
        seckill::GetResultRequest& request = requests[slot];
        request.set_request_id(RequestId(activity_id_, accepted_requests[index].first,
                                         accepted_requests[index].second));
        request.set_activity_id(activity_id_);
        request.set_sku_id(options_.sku_id);
        request.set_user_id(UserId(activity_id_, accepted_requests[index].first));
        ProxyOf(slot).GetResultWithCallback(
            request,
            [&counts, &checker, &order_numbers, index,
             slot](Result<seckill::GetResultResponse> result) {
              if (!result.ok()) {
                counts.errors.fetch_add(1, std::memory_order_relaxed);
              } else if (result->state() == seckill::CREATED) {
                counts.created.fetch_add(1, std::memory_order_relaxed);
                order_numbers[index] = result->order_no();
              } else if (result->state() == seckill::PENDING) {
                counts.pending.fetch_add(1, std::memory_order_relaxed);
              } else {
                counts.failed.fetch_add(1, std::memory_order_relaxed);
              }
              checker->Next(slot);
            },
            AsBuyer(admin_options_, request.user_id()));
      });
  checker->Start();
  const Clock::time_point lookup_deadline =
      Clock::now() + Seconds(options_.settle_timeout_s) + admin_options_.timeout;
  if (!checker->WaitUntil(lookup_deadline)) {
    checker->Stop();
    err_ << kProgram << ": GetResult lookups did not finish; the ones not made count as lost\n";
    // Every call out has a timeout, so they all come back within one more.
    if (!checker->WaitUntil(Clock::now() + admin_options_.timeout + std::chrono::seconds(1))) {
      proxies_.clear();  // completes them as CANCELLED while `counts` is alive
    }
  }
  const int64_t created = static_cast<int64_t>(counts.created.load());
  o->lost = static_cast<int64_t>(accepted_requests.size()) - created;
  const OrderEvidence evidence = CheckOrderNumbers(accepted_requests, order_numbers);
  o->created_orders = evidence.orders;
  o->duplicate_orders = std::max(o->duplicate_orders, evidence.users_with_two_orders);
  // Units of cancelled orders are sold again, so only orders still live count against stock.
  const int64_t live_by_get_result = evidence.orders - std::max<int64_t>(0, o->cancelled_orders);
  o->oversold = std::max<int64_t>(0, std::max(o->orders, live_by_get_result) - options_.stock);

  // --verify-db: the database of record read directly, not through the provider.
  Status database_status;
  if (!options_.database.kind.empty()) {
    std::vector<std::pair<std::string, std::string>> accepted_ids;  // request id, user id
    accepted_ids.reserve(accepted_requests.size());
    for (const auto& [buyer, second_request] : accepted_requests) {
      accepted_ids.emplace_back(RequestId(activity_id_, buyer, second_request),
                                UserId(activity_id_, buyer));
    }
    database_status =
        ReadSeckillDatabase(options_.database, activity_id_, accepted_ids, &o->database);
    o->database_read = database_status.ok();
    if (o->database_read) {
      const SeckillDatabaseFindings& d = o->database;
      o->oversold = std::max(o->oversold, std::max<int64_t>(0, d.unpaid + d.paid - options_.stock));
      o->duplicate_orders = std::max(o->duplicate_orders, d.users_with_two_orders);
    }
  }

  // The summary.
  const auto us = [](std::chrono::nanoseconds v) { return ToMicros(v); };
  out_ << "--- " << kProgram << " summary: activity " << activity_id_ << ", " << o->purchases
       << " of " << plan_.size() << " purchases sent in " << burst_seconds_ << " s"
       << (cut_short_ ? " (cut short by --duration-limit)" : "") << "\n"
       << "purchases: " << o->answered << " answered, " << answers[kRateLimited]
       << " rate limited, " << o->errors << " errors; qps (answered): " << o->qps << "\n"
       << "latency us: p50=" << o->p50_us << " p90=" << us(latency.ValueAtPercentile(90))
       << " p99=" << o->p99_us << " p999=" << us(latency.ValueAtPercentile(99.9))
       << " min=" << us(latency.min()) << " mean=" << us(latency.mean())
       << " max=" << us(latency.max()) << "\n"
       << "answers:";
  for (const auto& [name, count] : o->answers) out_ << " " << name << "=" << count;
  out_ << "\n";
  if (!o->errors_by_status.empty()) {
    out_ << "errors by status:";
    for (const auto& [name, count] : o->errors_by_status) out_ << " " << name << "=" << count;
    out_ << "\n";
  }
  if (settle_ms_ >= 0) {
    out_ << "settled: " << settle_ms_ << " ms after the burst (" << settle_note_ << ")\n";
  } else {
    out_ << "settled: not within " << options_.settle_timeout_s << " s (" << settle_note_ << ")\n";
  }
  if (reconcile_ok) {
    const seckill::ReconcileResponse& rec = *reconciled;
    out_ << "reconcile: orders=" << o->orders << " (unpaid " << rec.orders_unpaid() << ", paid "
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
  out_ << "get-result: " << accepted_requests.size() << " accepted requests: " << created
       << " CREATED, " << counts.pending.load() << " PENDING, " << counts.failed.load()
       << " FAILED or unknown, " << counts.errors.load() << " errors; " << evidence.orders
       << " distinct orders, " << evidence.users_with_two_orders << " users with two, "
       << evidence.shared << " shared by two users, " << evidence.unnumbered
       << " without an order number\n";
  if (!options_.database.kind.empty()) {
    const SeckillDatabaseFindings& d = o->database;
    if (o->database_read) {
      out_ << "database (" << options_.database.kind << "): orders=" << d.unpaid + d.paid
           << " (unpaid " << d.unpaid << ", paid " << d.paid << ", cancelled " << d.cancelled
           << ") remaining=" << d.remaining << " of " << d.initial_stock
           << " users_with_two_orders=" << d.users_with_two_orders
           << " accepted_without_order=" << d.accepted_without_order
           << " accepted_order_of_another_user=" << d.accepted_order_of_another_user << "\n";
    } else {
      out_ << "database (" << options_.database.kind << "): " << database_status << "\n";
    }
  }
  if (same_request_ > 0) {
    out_ << "retries: " << o->answer_mismatches
         << " answered differently from the first purchase under their request id\n";
  }

  std::vector<std::string> failures;
  // With no order cancelled every unit is sold once: exactly min(stock, buyers) live orders.
  // Cancelled units may be sold again or not (the sale can run out of buyers first).
  if (o->cancelled_orders == 0 && o->orders != o->expected_orders) {
    failures.push_back("orders " + std::to_string(o->orders) + " != min(stock " +
                       std::to_string(options_.stock) + ", buyers " +
                       std::to_string(buyers_attempted) +
                       ") = " + std::to_string(o->expected_orders));
  }
  if (o->oversold > 0) failures.push_back("oversold by " + std::to_string(o->oversold));
  if (o->duplicate_orders > 0) {
    failures.push_back(std::to_string(o->duplicate_orders) + " users hold two orders");
  }
  if (o->lost > 0) {
    failures.push_back(std::to_string(o->lost) + " accepted requests did not become orders");
  }
  if (o->answer_mismatches > 0) {
    failures.push_back(std::to_string(o->answer_mismatches) +
                       " retries got another answer than the first purchase");
  }
  if (evidence.shared > 0) {
    failures.push_back(std::to_string(evidence.shared) + " orders given to two users");
  }
  if (evidence.unnumbered > 0) {
    failures.push_back(std::to_string(evidence.unnumbered) + " CREATED without an order number");
  }
  // Every order of this fresh activity comes from a request this run sent and looked up.
  if (reconcile_ok && o->lost == 0 && reconciled_orders != evidence.orders) {
    failures.push_back("Reconcile counts " + std::to_string(reconciled_orders) +
                       " orders, GetResult gave " + std::to_string(evidence.orders));
  }
  if (!options_.database.kind.empty()) {
    const SeckillDatabaseFindings& d = o->database;
    if (!o->database_read) {
      failures.push_back("--verify-db: " + database_status.ToString());
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
      if (o->lost == 0 && d.unpaid + d.paid + d.cancelled != evidence.orders) {
        failures.push_back("database holds " + std::to_string(d.unpaid + d.paid + d.cancelled) +
                           " orders, GetResult gave " + std::to_string(evidence.orders));
      }
    }
  }
  if (reconcile_ok && !o->invariants_hold) failures.push_back("Reconcile: invariants broken");
  if (!reconcile_ok) failures.push_back("Reconcile failed");
  if (!accepted_written) failures.push_back("--accepted-out not written");
  o->passed = failures.empty();
  out_ << "check: " << (o->passed ? "PASS" : "FAIL");
  for (const std::string& failure : failures) out_ << "; " << failure;
  out_ << "\n"
       << "SECKILL settle_ms=" << o->settle_ms << " expected_orders=" << o->expected_orders
       << " accepted=" << answers[kAccepted] << " accepted_requests=" << accepted_requests.size()
       << " answered=" << o->answered << " errors=" << o->errors
       << " burst_ms=" << std::llround(burst_seconds_ * 1000)
       << " check=" << (o->passed ? "pass" : "fail") << "\n"
       << "RESULT qps=" << o->qps << " p50_us=" << o->p50_us << " p99_us=" << o->p99_us
       << " orders=" << o->orders << " stock=" << o->stock << " oversold=" << o->oversold
       << " duplicate_orders=" << o->duplicate_orders << " lost=" << o->lost << std::endl;
  return o->passed;
}

int RunSeckill(int argc, const char* const* argv) {
  SeckillBenchOptions options;
  LoadOptions& load = options.load;
  // By default the sale is contended and has retries in flight, the case the checks are for.
  load.conns = kDefaultConns;
  load.depth = kDefaultDepth;
  options.dup_ratio = kDefaultDupRatio;
  FlagParser flags(std::string{kProgram});
  flags.AddString("--target", "HOST:PORT", &load.target, "the seckill-server to load");
  flags.AddInteger<uint32_t>("--conns", "C", &load.conns, 1, 100'000, "connections (default 4)");
  flags.AddInteger<uint32_t>("--depth", "D", &load.depth, 1, 100'000,
                             "purchases outstanding per connection (default 32)");
  flags.AddInteger<uint32_t>("--threads", "T", &load.threads, 1, 1'024,
                             "client IO threads per connection (default 1)");
  AddChannelFlags(flags, &options.channel, &load);
  flags.AddInteger<int64_t>("--stock", "S", &options.stock, 1, 1'000'000'000,
                            "units on sale (required)");
  flags.AddInteger<uint32_t>("--buyers", "N", &options.buyers, 1, 50'000'000,
                             "distinct buyers, one purchase each (required)");
  flags.AddDouble("--dup-ratio", "R", &options.dup_ratio, 0, 1,
                  "fraction of buyers sending a second purchase: alternately the same request "
                  "id again and a new one (default 0.1)");
  flags.AddDouble("--duration-limit", "SECONDS", &options.duration_limit_s, 0.001, 86'400,
                  "no purchase starts after this (default 60)");
  flags.AddDouble("--settle-timeout", "SECONDS", &options.settle_timeout_s, 0, 86'400,
                  "how long to wait for the orders after the burst (default 60)");
  flags.AddInteger<uint32_t>("--pay-timeout-s", "SECONDS", &options.pay_timeout_s, 1, 100'000'000,
                             "the activity's pay timeout (default 86400)");
  flags.AddInteger<int64_t>("--sku", "ID", &options.sku_id, 1, std::numeric_limits<int64_t>::max(),
                            "the activity's sku id (default 1)");
  flags.AddString("--accepted-out", "FILE", &options.accepted_out,
                  "write every ACCEPTED request as an 'activity_id request_id user_id' line");
  SeckillDatabaseOptions& db = options.database;
  flags.AddString("--verify-db", "sqlite|mariadb", &db.kind,
                  "after the checks through the provider, read its database directly (with "
                  "--db-path, or --db-host/--db-port/--db-user/--db-password/--db-name)");
  flags.AddString("--db-path", "FILE", &db.sqlite_path, "the embedded backend's SQLite file");
  flags.AddString("--db-host", "HOST", &db.host, "MariaDB host (default 127.0.0.1)");
  flags.AddInteger<uint16_t>("--db-port", "PORT", &db.port, 1, 65535,
                             "MariaDB port (default 3306)");
  flags.AddString("--db-user", "USER", &db.user, "MariaDB user (default root)");
  flags.AddString("--db-password", "PASSWORD", &db.password, "MariaDB password (default empty)");
  flags.AddString("--db-name", "NAME", &db.database, "MariaDB database (default ferry_seckill)");
  std::string user_token_key;
  flags.AddString("--user-token-key", "ID:SECRET_FILE", &user_token_key,
                  "sign a user token for each buyer with key ID and the secret in SECRET_FILE "
                  "(the provider's user_token filter; default: no tokens)");
  flags.AddCheck([&options, &user_token_key](std::string* error) {
    if (user_token_key.empty()) return true;
    const size_t colon = user_token_key.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == user_token_key.size()) {
      *error = "--user-token-key: expected ID:SECRET_FILE, got '" + user_token_key + "'";
      return false;
    }
    const std::string file = user_token_key.substr(colon + 1);
    std::ifstream in(file);
    std::string secret((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    while (!secret.empty() && (secret.back() == '\n' || secret.back() == '\r')) secret.pop_back();
    if (!in.good() && !in.eof()) secret.clear();
    if (secret.empty()) {
      *error = "--user-token-key: cannot read a secret from '" + file + "'";
      return false;
    }
    options.user_token_key_id = user_token_key.substr(0, colon);
    options.user_token_secret = std::move(secret);
    if (plugins::MakeUserToken(options.user_token_key_id, options.user_token_secret, "probe", 0, 1)
            .empty()) {
      *error = "--user-token-key: '" + options.user_token_key_id +
               "' is not a key id (1-64 of A-Z a-z 0-9 . _ @ -)";
      return false;
    }
    return true;
  });
  flags.AddCheck([&options](std::string* error) {
    const SeckillDatabaseOptions& d = options.database;
    if (!d.kind.empty() && d.kind != "sqlite" && d.kind != "mariadb") {
      *error = "--verify-db: expected sqlite or mariadb, got '" + d.kind + "'";
      return false;
    }
    if (d.kind == "sqlite" && d.sqlite_path.empty()) {
      *error = "--verify-db sqlite: --db-path is required";
      return false;
    }
    return true;
  });
  flags.AddCheck([&options](std::string* error) {
    const LoadOptions& l = options.load;
    if (options.stock == 0 || options.buyers == 0) {
      *error = options.stock == 0 ? "--stock: required" : "--buyers: required";
      return false;
    }
    if (uint64_t{l.conns} * l.depth > kMaxCallsInFlight) {
      *error = "--conns x --depth: at most " + std::to_string(kMaxCallsInFlight) +
               " calls in flight, got " + std::to_string(uint64_t{l.conns} * l.depth);
      return false;
    }
    HostPort ignored;
    std::string why;
    if (!l.target.empty() && !ParseHostPort(l.target, &ignored, &why)) {
      *error = "--target: " + why;
      return false;
    }
    return true;
  });
  if (auto exit_code = flags.ParseOrExit(argc, argv)) return *exit_code;
  return RunSeckillBench(options, std::cout, std::cerr);
}

}  // namespace

int RunSeckillBench(const SeckillBenchOptions& options, std::ostream& out, std::ostream& err,
                    SeckillBenchOutcome* outcome) {
  std::vector<std::shared_ptr<Channel>> channels;
  if (Status opened = OpenChannels(options.channel, kSeckillService, options.load, &channels);
      !opened.ok()) {
    err << kProgram << ": " << opened << "\n";
    return 1;
  }
  out << kProgram << ": target="
      << (options.load.target.empty() ? options.channel.registry : options.load.target)
      << " conns=" << options.load.conns << " depth=" << options.load.depth
      << " threads=" << options.load.threads << " stock=" << options.stock
      << " buyers=" << options.buyers << " dup-ratio=" << options.dup_ratio
      << " duration-limit=" << options.duration_limit_s << "s "
      << DescribeChannels(options.channel, kSeckillService) << std::endl;
  if (!options.accepted_out.empty() && !std::ofstream(options.accepted_out, std::ios::trunc)) {
    err << kProgram << ": --accepted-out: cannot open " << options.accepted_out << " for writing\n";
    return 1;
  }
  Sale sale(options, std::move(channels), out, err);
  if (Status opened = sale.Open(); !opened.ok()) {
    err << kProgram << ": cannot set up the sale: " << opened << "\n";
    return 1;
  }
  sale.Burst();
  sale.Settle();
  SeckillBenchOutcome local;
  SeckillBenchOutcome* o = outcome ? outcome : &local;
  return sale.Check(o) ? 0 : 1;
}

const Command kSeckillCommand = {
    .name = "seckill",
    .summary = "one flash sale on ferry.seckill.SeckillService, then checks the orders",
    .run = RunSeckill,
};

}  // namespace ferry::bench
