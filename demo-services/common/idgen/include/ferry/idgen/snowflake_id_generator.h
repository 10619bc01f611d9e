#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>

#include "ferry/codec/status.h"
#include "ferry/idgen/clock.h"
#include "ferry/idgen/id_layout.h"
#include "ferry/idgen/worker_id_lease.h"

namespace ferry::idgen {

struct SnowflakeOptions {
  // Unix ms that timestamp 0 stands for. Fixed for an id space, forever (id_layout.h).
  int64_t epoch_ms = kDefaultEpochMs;
  // How far the clock may step back and be waited out (holding up NextId for at most that
  // long). A larger step makes NextId fail with UNAVAILABLE until the clock is past the last
  // issued millisecond again: waiting out minutes inside a request would only turn the
  // outage into timeouts. 5 ms covers the small corrections NTP and VM migrations make
  // without noticeably delaying a caller.
  std::chrono::milliseconds max_clock_step_back{5};
  // Null: SystemClock().
  std::shared_ptr<Clock> clock;
};

// Issues 64-bit ids (layout in id_layout.h): positive, unique among all generators of one id
// space with distinct worker ids and the same epoch, and strictly increasing per generator.
// Thread-safe; one mutex serialises NextId, which is far below a microsecond of work, so the
// 4096 ids per ms a worker id allows are the limit, not the lock.
class SnowflakeIdGenerator {
 public:
  // A fixed worker id from configuration; INVALID_ARGUMENT when above kMaxWorkerId or when an
  // option is out of range. The operator guarantees no other process uses the same id.
  static Status Create(uint32_t worker_id, SnowflakeOptions options,
                       std::unique_ptr<SnowflakeIdGenerator>* out);
  // A worker id from `lease` (e.g. ZooKeeperWorkerIdLease), asked before every id; the
  // generator keeps the lease alive as long as it lives.
  static Status Create(std::shared_ptr<const WorkerIdLease> lease, SnowflakeOptions options,
                       std::unique_ptr<SnowflakeIdGenerator>* out);

  SnowflakeIdGenerator(const SnowflakeIdGenerator&) = delete;
  SnowflakeIdGenerator& operator=(const SnowflakeIdGenerator&) = delete;

  // The next id. When this millisecond's 4096 sequence numbers are used up it waits for the
  // next millisecond; when the clock has stepped back by up to max_clock_step_back it waits
  // until the clock is past the last issued millisecond again. UNAVAILABLE, issuing nothing,
  // when the clock stepped back further (logged as an error once per episode), when it reads
  // before the epoch or beyond the 41-bit range, or when the lease is not held.
  Status NextId(int64_t* id);

  int64_t epoch_ms() const { return options_.epoch_ms; }
  // DecodeId with this generator's epoch.
  std::optional<DecodedId> Decode(int64_t id) const { return DecodeId(id, options_.epoch_ms); }

 private:
  SnowflakeIdGenerator(std::optional<uint32_t> static_worker_id,
                       std::shared_ptr<const WorkerIdLease> lease, SnowflakeOptions options);
  static Status Validate(const SnowflakeOptions& options);
  Status WorkerId(uint32_t* worker_id) const;
  // With mu_ held: the ms (since the epoch) for the next id, after waiting if needed; the last
  // issued ms only if `may_reuse_last_ms`.
  Status NextTimestamp(bool may_reuse_last_ms, int64_t* timestamp);

  const std::optional<uint32_t> static_worker_id_;
  const std::shared_ptr<const WorkerIdLease> lease_;
  const SnowflakeOptions options_;

  std::mutex mu_;
  int64_t last_timestamp_ = -1;  // ms since the epoch of the last id issued
  uint32_t last_worker_id_ = 0;
  uint32_t sequence_ = 0;  // of the last id issued
  bool refusing_ = false;  // refusing because of the clock (logged once per episode)
  uint64_t refused_ = 0;   // ids refused in this episode
};

}  // namespace ferry::idgen
