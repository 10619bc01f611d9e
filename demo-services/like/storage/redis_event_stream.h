#pragma once

#include <atomic>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "ferry/codec/status.h"
#include "ferry/storage/redis_connection_pool.h"
#include "storage/appended_streams.h"
#include "storage/like_event.h"

namespace ferry::like {

// The bucket streams as the event writers' consumer group sees them. An entry is delivered to
// one consumer, stays pending until acknowledged (after its database commit), and is then
// deleted, so a stream holds exactly the changes not yet persisted.
class RedisEventStream {
 public:
  // Which streams a read looks at.
  enum class Scope {
    kAppended,  // those this process appended to since they were last read (no call if none)
    kEvery,     // every registered stream: the sweep that finds everyone else's entries
  };

  // `appended` (which must outlive the stream) is where this process notes its appends.
  RedisEventStream(storage::RedisConnectionPool* pool, AppendedStreams* appended)
      : pool_(pool), appended_(appended) {}

  // New entries, at most `max_count` per stream; an appended-scope read stops once it holds
  // `max_count` and leaves the streams it did not reach, like those it did not empty, noted.
  Status Read(const std::string& consumer, int max_count, Scope scope, std::vector<LikeEvent>* out);
  // Entries pending for longer than `min_idle_ms` with any consumer (a dead one's, or this
  // one's own that failed), now this consumer's; each with its delivery count.
  Status Claim(const std::string& consumer, int64_t min_idle_ms, int max_count,
               std::vector<LikeEvent>* out);
  // Acknowledges and deletes the entries.
  Status Ack(const std::vector<LikeEvent>& events);

  // True, for one caller, when no writer of this process has swept every stream for
  // `every_ms`: the caller sweeps now, so a process's writers take turns at it.
  bool SweepDue(int64_t now_ms, int64_t every_ms) {
    int64_t last = last_sweep_ms_.load();
    while (now_ms - last >= every_ms) {
      if (last_sweep_ms_.compare_exchange_weak(last, now_ms)) return true;
    }
    return false;
  }

 private:
  Status Streams(std::vector<std::string>* out);
  // XREADGROUP of `streams` (at most kStreamsPerRead); notes those that returned `max_count`.
  Status ReadSome(const std::string& consumer, int max_count, std::span<const std::string> streams,
                  std::vector<LikeEvent>* out);
  // XAUTOCLAIM of `streams` in one pipeline.
  Status ClaimSome(const std::string& consumer, int64_t min_idle_ms, int max_count,
                   std::span<const std::string> streams, std::vector<LikeEvent>* out);
  // The delivery count of each of `events` (XPENDING), for dead-lettering.
  Status AddDeliveries(std::span<LikeEvent> events);

  storage::RedisConnectionPool* const pool_;
  AppendedStreams* const appended_;
  std::atomic<int64_t> last_sweep_ms_{std::numeric_limits<int64_t>::min() / 2};
};

}  // namespace ferry::like
