#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "client/call_observer.h"
#include "ferry/framework/channel.h"
#include "stats/call_metrics.h"
#include "thread_annotations.h"

namespace google::protobuf {
class Message;
}

namespace ferry::client {

using Clock = std::chrono::steady_clock;

// A call that was sent (or queued) and awaits its response.
struct PendingCall {
  google::protobuf::Message* response = nullptr;
  CallDone done;
  Clock::time_point deadline = Clock::time_point::max();
  std::chrono::milliseconds timeout{0};    // the call's whole budget, quoted when it expires
  std::shared_ptr<CallObserver> observer;  // may be null
  stats::CallMeter meter;                  // empty unless the channel counts the call itself
  uint64_t link = 0;                       // the connection's link the call was admitted to

  // Counts the call, tells the observer and lets go of it, then runs `done`: once `done` ran,
  // whatever owns the observer may be gone.
  void Complete(const Status& status) {
    meter.Finish(status.code());
    if (observer != nullptr) {
      observer->OnCallDone(status);
      observer.reset();
    }
    done(status);
  }
};

// Wire request id -> pending call, for one connection. Whoever takes an entry (the response,
// the timeout sweep, a dropped connection, a shutdown) completes that call; since an entry can
// be taken only once, every call completes exactly once however those race.
//
// Sharded by id so that callers on many threads and the IO thread rarely meet on one mutex.
// Erased nodes are recycled, so a warmed-up table allocates nothing per call.
class PendingCallTable {
 public:
  using Entry = std::pair<uint64_t, PendingCall>;

  void Insert(uint64_t id, PendingCall call);
  std::optional<PendingCall> Take(uint64_t id);
  // Moves every entry to `out`, leaving the table empty.
  void TakeAll(std::vector<Entry>* out);
  // Moves the entries admitted to link `through_link` or an earlier one (PendingCall::link) to
  // `out`: what a link that ended fails, leaving the calls already queued on the next link.
  void TakeAdmittedBy(uint64_t through_link, std::vector<Entry>* out);
  // Moves the entries whose deadline is at or before `now` to `out`. Returns a lower bound of
  // the remaining deadlines (time_point::max() when none remains): the next sweep is due then.
  Clock::time_point TakeExpired(Clock::time_point now, std::vector<Entry>* out);

  size_t size() const;
  uint64_t inserted() const;  // calls ever inserted

 private:
  static constexpr size_t kShards = 32;
  static constexpr size_t kMaxSpareNodes = 256;
  using Map = std::unordered_map<uint64_t, PendingCall>;

  struct alignas(64) Shard {
    mutable Mutex mu;
    Map calls FERRY_GUARDED_BY(mu);
    std::vector<Map::node_type> spare FERRY_GUARDED_BY(mu);
    // A lower bound, not the exact minimum: Take() does not raise it, the next expiry scan of
    // the shard does. So shards whose calls all complete in time are scanned about once per
    // timeout period rather than on every sweep.
    Clock::time_point earliest_deadline FERRY_GUARDED_BY(mu) = Clock::time_point::max();
    uint64_t inserted FERRY_GUARDED_BY(mu) = 0;
  };

  Shard& ShardOf(uint64_t id) { return shards_[id % kShards]; }
  // Erases `it` from `shard`, keeping its node for reuse.
  static Entry Extract(Shard& shard, Map::iterator it) FERRY_REQUIRES(shard.mu);

  std::array<Shard, kShards> shards_;
};

}  // namespace ferry::client
