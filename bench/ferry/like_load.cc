#include "like_load.h"

#include <algorithm>
#include <cmath>
#include <thread>

#include "ferry/plugins/user_token.h"
#include "window_run.h"

namespace ferry::bench {
namespace {

constexpr std::string_view kProgram = "ferry-bench like";

// Failures after which the call surely did not apply: refused before or by the handler.
bool SurelyNotApplied(StatusCode code) {
  return code == StatusCode::RESOURCE_EXHAUSTED || code == StatusCode::INVALID_ARGUMENT ||
         code == StatusCode::UNAUTHENTICATED || code == StatusCode::PERMISSION_DENIED ||
         code == StatusCode::FAILED_PRECONDITION;
}

}  // namespace

LikeLoad::LikeLoad(const LikeBenchOptions& options, std::vector<std::shared_ptr<Channel>> channels,
                   std::ostream& out, std::ostream& err, std::shared_ptr<Channel> operator_channel)
    : options_(options),
      out_(out),
      err_(err),
      window_(options.load.conns * options.load.depth),
      users_per_slot_(options.users / window_),
      // Fresh contents per run (ids from the clock, 1000 apart per ms), so runs against the
      // same provider never share a count.
      content_base_(options.content_base != 0 ? options.content_base : WallMs() * 1000),
      admin_options_{.timeout = std::chrono::milliseconds(
                         std::max<uint32_t>(options.channel.timeout_ms, 30'000))},
      picker_(options.contents, options.zipf_s, options.hot_share),
      truth_(window_, options.contents) {
  operator_ = std::make_unique<like::LikeServiceProxy>(operator_channel ? operator_channel
                                                                        : channels.front());
  for (auto& channel : channels) proxies_.emplace_back(std::move(channel));
}

Status LikeLoad::Open() {
  like::GetCountsRequest probe;
  probe.add_content_ids(ContentId(0));
  for (size_t i = 0; i < proxies_.size(); ++i) {
    Result<like::GetCountsResponse> probed = proxies_[i].GetCounts(probe, admin_options_);
    if (!probed.ok()) {
      return Status(probed.status().code(),
                    "channel " + std::to_string(i) + ": GetCounts: " + probed.status().message());
    }
  }
  if (!options_.user_token_key_id.empty()) {
    // Good for the whole run: the load, settling and the checks.
    const int64_t now_s = WallMs() / 1000;
    const auto ttl_s =
        static_cast<int64_t>(options_.duration_limit_s + options_.settle_timeout_s) + 3600;
    tokens_.resize(size_t{window_} * users_per_slot_);
    for (uint32_t user = 0; user < tokens_.size(); ++user) {
      tokens_[user] = plugins::MakeUserToken(options_.user_token_key_id, options_.user_token_secret,
                                             UserName(user), now_s, now_s + ttl_s);
    }
  }
  out_ << kProgram << ": contents " << ContentId(0) << ".." << ContentId(options_.contents - 1)
       << " (the hottest gets " << std::llround(picker_.Share(0) * 1000) / 10.0
       << "% of the picks), " << size_t{window_} * users_per_slot_ << " users (" << users_per_slot_
       << " per slot), " << options_.calls << " calls, " << options_.get_ratio * 100
       << "% GetCounts of " << options_.batch << " ids" << std::endl;
  return Status::Ok();
}

void LikeLoad::Issue(uint32_t slot_number) {
  Slot& slot = slots_[slot_number];
  slot.sent = Clock::now();
  std::uniform_real_distribution<double> unit(0, 1);
  if (unit(slot.random) < options_.get_ratio) {
    slot.get.clear_content_ids();
    for (uint32_t i = 0; i < options_.batch; ++i) {
      slot.get.add_content_ids(ContentId(picker_.Pick(slot.random)));
    }
    ProxyOf(slot_number)
        .GetCountsWithCallback(
            slot.get,
            [this, slot_number](Result<like::GetCountsResponse> result) {
              OnGet(slot_number, result);
            },
            CallOptions{});
    return;
  }
  slot.content = picker_.Pick(slot.random);
  std::uniform_int_distribution<uint32_t> pick_user(0, users_per_slot_ - 1);
  slot.user = slot_number + window_ * pick_user(slot.random);
  slot.attempts = 0;
  slot.maybe_applied = false;
  slot.set.set_content_id(ContentId(slot.content));
  slot.set.set_user_id(UserName(slot.user));
  slot.set.set_liked(unit(slot.random) >= options_.unlike_ratio);
  // Unique per run (content base and seed): a later run on the same contents must not replay
  // an earlier run's request ids.
  slot.set.set_request_id("lk" + std::to_string(content_base_) + "-" +
                          std::to_string(options_.seed) + "-s" + std::to_string(slot_number) + "-" +
                          std::to_string(slot.serial++));
  slot.options = CallOptions{};
  if (!tokens_.empty()) {
    slot.options.attachments[std::string(plugins::kUserTokenAttachment)] = tokens_[slot.user];
  }
  SendSet(slot_number);
}

void LikeLoad::SendSet(uint32_t slot_number) {
  Slot& slot = slots_[slot_number];
  ++slot.attempts;
  ProxyOf(slot_number)
      .SetLikeWithCallback(
          slot.set,
          [this, slot_number](Result<like::SetLikeResponse> result) { OnSet(slot_number, result); },
          slot.options);
}

void LikeLoad::OnSet(uint32_t slot_number, const Result<like::SetLikeResponse>& result) {
  Slot& slot = slots_[slot_number];
  Recorder& r = recorders_.Mine();
  const LikeTruth::State wanted =
      slot.set.liked() ? LikeTruth::State::kLiked : LikeTruth::State::kUnliked;
  if (result.ok()) {
    truth_.Record(slot_number, slot.content, slot.user, wanted);
    r.Answered(kSet, Clock::now() - slot.sent);
  } else {
    const StatusCode code = result.status().code();
    if (!SurelyNotApplied(code)) {
      slot.maybe_applied = true;
      // The same request again: it carries the state, so a repeat cannot undo the first.
      if (slot.attempts <= options_.retries && !loop_->stopping()) {
        r.retries.Add(1);
        SendSet(slot_number);
        return;
      }
    }
    if (code == StatusCode::RESOURCE_EXHAUSTED) {
      r.rate_limited.Add(1);
    } else {
      r.Failed(code);
    }
    if (slot.maybe_applied && truth_.Get(slot_number, slot.content, slot.user) != wanted) {
      truth_.Record(slot_number, slot.content, slot.user, LikeTruth::State::kUncertain);
    }
  }
  r.completed.Add(1);
  loop_->Next(slot_number);
}

void LikeLoad::OnGet(uint32_t slot_number, const Result<like::GetCountsResponse>& result) {
  Slot& slot = slots_[slot_number];
  Recorder& r = recorders_.Mine();
  if (result.ok() && result->counts_size() == slot.get.content_ids_size()) {
    r.Answered(kGet, Clock::now() - slot.sent);
  } else if (result.ok()) {
    r.BadAnswer();  // a count per id is the contract
  } else if (result.status().code() == StatusCode::RESOURCE_EXHAUSTED) {
    r.rate_limited.Add(1);
  } else {
    r.Failed(result.status().code());
  }
  r.completed.Add(1);
  loop_->Next(slot_number);
}

void LikeLoad::Run() {
  slots_ = std::make_unique<Slot[]>(window_);
  for (uint32_t i = 0; i < window_; ++i) slots_[i].random.seed(options_.seed * 1'000'003 + i);
  loop_ = std::make_unique<BoundedLoop>(options_.calls, window_,
                                        [this](uint64_t, uint32_t slot) { Issue(slot); });
  const uint32_t timeout_ms = options_.channel.timeout_ms == 0 ? 5000 : options_.channel.timeout_ms;
  const WindowRun run = RunWindow(
      *loop_,
      {.program = kProgram,
       .calls = "calls",
       .total = options_.calls,
       .duration_limit_s = options_.duration_limit_s,
       .drain = (options_.retries + 1) * std::chrono::milliseconds(timeout_ms) +
                std::chrono::seconds(1)},
      options_.load, out_, [this](double elapsed, double interval, uint64_t* last_completed) {
        return SampleProgress(SumCalls<kKinds>(recorders_), elapsed, interval, last_completed);
      });
  load_end_ = run.end;
  load_seconds_ = run.seconds;
  cut_short_ = run.cut_short;
}

}  // namespace ferry::bench
