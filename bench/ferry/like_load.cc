#include "like_load.h"

#include <algorithm>
#include <cmath>
#include <thread>

#include "ferry/plugins/user_token.h"

namespace ferry::bench {
namespace {

constexpr std::string_view kProgram = "ferry-bench like";

int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

double SecondsBetween(std::chrono::steady_clock::time_point from,
                      std::chrono::steady_clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

std::chrono::steady_clock::duration Seconds(double seconds) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(seconds));
}

// Failures after which the call surely did not apply: refused before or by the handler.
bool SurelyNotApplied(StatusCode code) {
  return code == StatusCode::RESOURCE_EXHAUSTED || code == StatusCode::INVALID_ARGUMENT ||
         code == StatusCode::UNAUTHENTICATED || code == StatusCode::PERMISSION_DENIED ||
         code == StatusCode::FAILED_PRECONDITION;
}

size_t CodeIndex(StatusCode code, size_t codes) {
  const auto index = static_cast<size_t>(code);
  return index < codes ? index : static_cast<size_t>(StatusCode::UNKNOWN);
}

}  // namespace

LikeLoad::LikeLoad(const LikeBenchOptions& options, std::vector<std::shared_ptr<Channel>> channels,
                   std::ostream& out, std::ostream& err)
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
  slot.set.set_request_id("lk" + std::to_string(content_base_) + "-s" +
                          std::to_string(slot_number) + "-" + std::to_string(slot.serial++));
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
    r.set_latency.Record(Clock::now() - slot.sent);
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
    (code == StatusCode::RESOURCE_EXHAUSTED ? r.rate_limited
                                            : r.errors[CodeIndex(code, kStatusCodes)])
        .Add(1);
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
    r.get_latency.Record(Clock::now() - slot.sent);
  } else if (result.ok()) {
    r.errors[static_cast<size_t>(StatusCode::OK)].Add(1);  // a count per id is the contract
  } else if (result.status().code() == StatusCode::RESOURCE_EXHAUSTED) {
    r.rate_limited.Add(1);
  } else {
    r.errors[CodeIndex(result.status().code(), kStatusCodes)].Add(1);
  }
  r.completed.Add(1);
  loop_->Next(slot_number);
}

ProgressSample LikeLoad::Progress(double elapsed, double interval, uint64_t* last_completed) {
  ProgressSample sample;
  sample.elapsed_seconds = elapsed;
  LatencyHistogram merged;
  uint64_t completed = 0;
  recorders_.ForEach([&](const Recorder& r) {
    completed += r.completed.Load();
    for (const SingleWriterCounter& e : r.errors) sample.errors += e.Load();
    merged.Merge(r.set_latency);
    merged.Merge(r.get_latency);
  });
  sample.interval_qps =
      interval > 0 ? static_cast<double>(completed - *last_completed) / interval : 0;
  *last_completed = completed;
  sample.p99 = merged.ValueAtPercentile(99);
  return sample;
}

void LikeLoad::Run() {
  slots_ = std::make_unique<Slot[]>(window_);
  for (uint32_t i = 0; i < window_; ++i) slots_[i].random.seed(options_.seed * 1'000'003 + i);
  loop_ = std::make_unique<BoundedLoop>(options_.calls, window_,
                                        [this](uint64_t, uint32_t slot) { Issue(slot); });
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
           << options_.calls << " calls; waiting for the ones in flight" << std::endl;
      const uint32_t timeout_ms =
          options_.channel.timeout_ms == 0 ? 5000 : options_.channel.timeout_ms;
      deadline = now + (options_.retries + 1) * std::chrono::milliseconds(timeout_ms) +
                 std::chrono::seconds(1);
    }
    if (now >= next_tick) {
      report.PrintProgress(
          Progress(SecondsBetween(start, now), SecondsBetween(last_tick, now), &last_completed));
      last_tick = now;
      next_tick += std::chrono::seconds(1);
    }
  }
  load_end_ = Clock::now();
  load_seconds_ = SecondsBetween(start, load_end_);
  launcher.join();
}

}  // namespace ferry::bench
