#pragma once

#include <array>
#include <chrono>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "bench_clock.h"
#include "bounded_loop.h"
#include "call_recorder.h"
#include "ferry/bench/single_writer_counter.h"
#include "ferry/bench/zipf_picker.h"
#include "ferry/framework/call_options.h"
#include "like.ferry.h"
#include "like_command.h"
#include "like_truth.h"
#include "per_thread.h"

namespace ferry::bench {

// One run of ferry-bench like: the load (Run), then waiting for the counts to settle and the
// check against the truth the load kept (Check).
class LikeLoad {
 public:
  // `operator_channel` carries the check's operator calls (null: the first of `channels`).
  LikeLoad(const LikeBenchOptions& options, std::vector<std::shared_ptr<Channel>> channels,
           std::ostream& out, std::ostream& err, std::shared_ptr<Channel> operator_channel);
  // Closing the channels completes whatever is still out as CANCELLED, while this is alive.
  ~LikeLoad() {
    operator_.reset();
    proxies_.clear();
  }

  // Every channel answers a GetCounts before the clock starts.
  Status Open();
  void Run();
  bool Check(LikeBenchOutcome* outcome);

 private:
  // The kinds of call, each with its latency: SetLike's from the first send to the answer,
  // resends included.
  static constexpr size_t kSet = 0;
  static constexpr size_t kGet = 1;
  static constexpr size_t kKinds = 2;

  struct Recorder : CallRecorder<kKinds> {
    SingleWriterCounter retries;
    SingleWriterCounter rate_limited;
  };

  // A slot's call in flight; a slot has one at a time and owns the users slot + k x window.
  struct Slot {
    std::mt19937_64 random;
    Clock::time_point sent;
    uint32_t content = 0;
    uint32_t user = 0;
    uint32_t attempts = 0;
    bool maybe_applied = false;  // an attempt failed in a way that may have applied it
    uint64_t serial = 0;         // this slot's SetLike count, for the request ids
    like::SetLikeRequest set;
    like::GetCountsRequest get;
    CallOptions options;
  };

  int64_t ContentId(uint32_t index) const { return content_base_ + index + 1; }
  std::string UserName(uint32_t user) const { return "u" + std::to_string(user); }
  like::LikeServiceProxy& ProxyOf(uint32_t slot) { return proxies_[slot / options_.load.depth]; }

  void Issue(uint32_t slot);
  void SendSet(uint32_t slot);
  void OnSet(uint32_t slot, const Result<like::SetLikeResponse>& result);
  void OnGet(uint32_t slot, const Result<like::GetCountsResponse>& result);
  // Polls GetCounts of every content written until each equals its truth or the timeout; the
  // counts last read go to `counts`.
  void Settle(const std::vector<LikeTruth::Tally>& tallies, std::vector<int64_t>* counts);
  // Reconcile of the hottest contents once nothing is pending (waiting up to --settle-timeout):
  // their violations, a content still pending counting as one.
  int64_t ReconcileHottest(const std::vector<LikeTruth::Tally>& tallies);

  const LikeBenchOptions& options_;
  std::ostream& out_;
  std::ostream& err_;
  const uint32_t window_;
  const uint32_t users_per_slot_;
  const int64_t content_base_;
  const CallOptions admin_options_;
  const ZipfPicker picker_;
  std::vector<like::LikeServiceProxy> proxies_;
  // Operator calls (Reconcile): signed when the provider wants it, else proxies_[0]'s channel.
  std::unique_ptr<like::LikeServiceProxy> operator_;
  std::vector<std::string> tokens_;  // by user; empty without --user-token-key
  std::unique_ptr<Slot[]> slots_;
  std::unique_ptr<BoundedLoop> loop_;
  LikeTruth truth_;
  PerThread<Recorder> recorders_;
  double load_seconds_ = 0;
  bool cut_short_ = false;
  Clock::time_point load_end_;
  int64_t settle_ms_ = -1;
  int64_t persisted_ms_ = -1;  // load end to the hottest contents reconciled
  std::string settle_note_;
};

}  // namespace ferry::bench
