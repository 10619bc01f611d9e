#include "seckill_sale.h"

#include <algorithm>
#include <thread>

#include "ferry/plugins/user_token.h"
#include "window_run.h"

namespace ferry::bench {
namespace {

constexpr std::string_view kProgram = kSeckillProgram;

}  // namespace

Sale::Sale(const SeckillBenchOptions& options, std::vector<std::shared_ptr<Channel>> channels,
           std::shared_ptr<Channel> operator_channel, std::ostream& out, std::ostream& err)
    : options_(options),
      out_(out),
      err_(err),
      window_(options.load.conns * options.load.depth),
      admin_options_{.timeout = std::chrono::milliseconds(
                         std::max<uint32_t>(options.channel.timeout_ms, 120'000))} {
  operator_ = std::make_unique<seckill::SeckillServiceProxy>(operator_channel ? operator_channel
                                                                              : channels.front());
  for (auto& channel : channels) proxies_.emplace_back(std::move(channel));
}

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
      operator_->CreateActivity(create, admin_options_);
  if (!created.ok()) {
    return Status(created.status().code(), "CreateActivity: " + created.status().message());
  }
  activity_id_ = created->activity_id();

  seckill::PreheatRequest preheat;
  preheat.set_activity_id(activity_id_);
  Result<seckill::PreheatResponse> preheated = operator_->Preheat(preheat, admin_options_);
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
    seckill::ActivityRef ref;
    ref.set_activity_id(activity_id_);
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
      r.Answered(0, latency);
      outcome = static_cast<uint8_t>(answer);
    } else {
      r.BadAnswer();
    }
  } else if (result.status().code() == StatusCode::RESOURCE_EXHAUSTED) {
    r.answers[kRateLimited].Add(1);
    outcome = static_cast<uint8_t>(kRateLimited + 1);
  } else {
    r.Failed(result.status().code());
  }
  outcomes_[slot.index].store(outcome, std::memory_order_relaxed);
  r.completed.Add(1);
  loop_->Next(slot_number);
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

  const WindowRun run = RunWindow(
      *loop_,
      {.program = kProgram,
       .calls = "purchases",
       .total = plan_.size(),
       .duration_limit_s = options_.duration_limit_s,
       .drain = std::chrono::milliseconds(options_.channel.timeout_ms) + std::chrono::seconds(1)},
      options_.load, out_, [this](double elapsed, double interval, uint64_t* last_completed) {
        return SampleProgress(SumCalls<1>(recorders_), elapsed, interval, last_completed);
      });
  burst_end_ = run.end;
  burst_seconds_ = run.seconds;
  cut_short_ = run.cut_short;
}

void Sale::Settle() {
  // All orders are written once no accepted reservation is left without its order or its
  // failure (nothing is released while the pay timeout runs), as Reconcile counts them.
  seckill::ActivityRef ref;
  ref.set_activity_id(activity_id_);
  const Clock::time_point deadline = burst_end_ + Seconds(options_.settle_timeout_s);
  Clock::time_point next_note = Clock::now() + std::chrono::seconds(1);
  while (true) {
    Result<seckill::ReconcileResponse> counts = operator_->Reconcile(ref, admin_options_);
    const Clock::time_point now = Clock::now();
    if (counts.ok()) {
      settle_note_ = std::to_string(counts->reservations_without_order()) +
                     " accepted reservations without an order (database stock " +
                     std::to_string(counts->database_stock()) + ", cache stock " +
                     std::to_string(counts->cache_stock()) + ")";
      // A cache that stopped selling (restarted, restored) reports -1 and broken invariants
      // until it is reloaded; the embedded backend, without a cache, reports -1 and holds them.
      if (counts->invariants_hold() && counts->reservations_without_order() == 0) {
        settle_ms_ = MillisBetween(burst_end_, now);
        return;
      }
    } else {
      settle_note_ = "Reconcile: " + counts.status().ToString();
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
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace ferry::bench
