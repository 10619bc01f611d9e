#include "ferry/idgen/snowflake_id_generator.h"

#include <spdlog/spdlog.h>

#include <string>
#include <utility>

#include "ferry/framework/logging.h"

namespace ferry::idgen {

Status SnowflakeIdGenerator::Validate(const SnowflakeOptions& options) {
  if (options.epoch_ms < 0) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "idgen epoch_ms must not be negative, got " + std::to_string(options.epoch_ms));
  }
  if (options.max_clock_step_back.count() < 0) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "idgen max_clock_step_back must not be negative, got " +
                      std::to_string(options.max_clock_step_back.count()) + " ms");
  }
  return Status::Ok();
}

Status SnowflakeIdGenerator::Create(uint32_t worker_id, SnowflakeOptions options,
                                    std::unique_ptr<SnowflakeIdGenerator>* out) {
  if (worker_id > kMaxWorkerId) {
    return Status(StatusCode::INVALID_ARGUMENT, "idgen worker id " + std::to_string(worker_id) +
                                                    " is out of range 0.." +
                                                    std::to_string(kMaxWorkerId));
  }
  if (Status status = Validate(options); !status.ok()) return status;
  out->reset(new SnowflakeIdGenerator(worker_id, nullptr, std::move(options)));
  return Status::Ok();
}

Status SnowflakeIdGenerator::Create(std::shared_ptr<const WorkerIdLease> lease,
                                    SnowflakeOptions options,
                                    std::unique_ptr<SnowflakeIdGenerator>* out) {
  if (lease == nullptr) {
    return Status(StatusCode::INVALID_ARGUMENT, "idgen worker id lease must not be null");
  }
  if (Status status = Validate(options); !status.ok()) return status;
  out->reset(new SnowflakeIdGenerator(std::nullopt, std::move(lease), std::move(options)));
  return Status::Ok();
}

SnowflakeIdGenerator::SnowflakeIdGenerator(std::optional<uint32_t> static_worker_id,
                                           std::shared_ptr<const WorkerIdLease> lease,
                                           SnowflakeOptions options)
    : static_worker_id_(static_worker_id), lease_(std::move(lease)), options_([&] {
        if (options.clock == nullptr) options.clock = SystemClock();
        return std::move(options);
      }()) {}

Status SnowflakeIdGenerator::WorkerId(uint32_t* worker_id) const {
  if (static_worker_id_) {
    *worker_id = *static_worker_id_;
    return Status::Ok();
  }
  if (Status status = lease_->Current(worker_id); !status.ok()) return status;
  if (*worker_id > kMaxWorkerId) {
    return Status(StatusCode::INTERNAL, "idgen worker id lease returned " +
                                            std::to_string(*worker_id) + ", out of range 0.." +
                                            std::to_string(kMaxWorkerId));
  }
  return Status::Ok();
}

Status SnowflakeIdGenerator::NextId(int64_t* id) {
  std::lock_guard lock(mu_);
  // Asked under the lock, so that a re-leased worker id is seen in the same order as the ids
  // issued with it.
  uint32_t worker_id = 0;
  if (Status status = WorkerId(&worker_id); !status.ok()) return status;
  // The last millisecond may be reused only by the same worker id with sequence numbers left;
  // otherwise (exhausted, or a re-leased worker id that might sort lower) the next id waits
  // for a later millisecond, which keeps ids strictly increasing.
  const bool may_reuse_last_ms = worker_id == last_worker_id_ && sequence_ < kMaxSequence;
  int64_t timestamp = 0;
  if (Status status = NextTimestamp(may_reuse_last_ms, &timestamp); !status.ok()) return status;
  sequence_ = timestamp == last_timestamp_ ? sequence_ + 1 : 0;
  last_timestamp_ = timestamp;
  last_worker_id_ = worker_id;
  *id = ComposeId(timestamp, worker_id, sequence_);
  return Status::Ok();
}

Status SnowflakeIdGenerator::NextTimestamp(bool may_reuse_last_ms, int64_t* timestamp) {
  Clock& clock = *options_.clock;
  // The first millisecond this id may carry.
  const int64_t earliest = may_reuse_last_ms ? last_timestamp_ : last_timestamp_ + 1;
  for (;;) {
    const int64_t now_ms = clock.NowMs();
    const int64_t now = now_ms - options_.epoch_ms;
    std::string refusal;
    if (now < 0) {
      refusal = "the clock reads " + std::to_string(now_ms) + " ms, before the id epoch " +
                std::to_string(options_.epoch_ms) + " ms";
    } else if (now > kMaxTimestamp) {
      refusal = "the clock reads " + std::to_string(now_ms) +
                " ms, beyond the 41-bit range of the id epoch " +
                std::to_string(options_.epoch_ms) + " ms";
    } else if (now >= earliest) {
      if (refusing_) {
        Logger().warn("idgen: the clock is past the last issued id again; issuing ids after {} {}",
                      refused_, refused_ == 1 ? "refusal" : "refusals");
        refusing_ = false;
        refused_ = 0;
      }
      *timestamp = now;
      return Status::Ok();
    } else if (now >= last_timestamp_) {
      // This millisecond's sequence is exhausted (or the worker id changed): wait for the next.
      clock.SleepUntil(earliest + options_.epoch_ms);
      continue;
    } else if (last_timestamp_ - now <= options_.max_clock_step_back.count()) {
      // A small step back: wait until the clock is where it was.
      Logger().warn("idgen: the clock stepped back {} ms (tolerance {} ms); waiting for it",
                    last_timestamp_ - now, options_.max_clock_step_back.count());
      clock.SleepUntil(earliest + options_.epoch_ms);
      continue;
    } else {
      refusal = "the clock stepped back " + std::to_string(last_timestamp_ - now) +
                " ms, beyond the " + std::to_string(options_.max_clock_step_back.count()) +
                " ms tolerance; ids would repeat until it is past the last issued millisecond " +
                "again";
    }
    // Logged once per episode: a caller retrying in a loop must not flood the log.
    if (!refusing_) {
      Logger().error("idgen: refusing to issue ids: {}", refusal);
      refusing_ = true;
    }
    ++refused_;
    return Status(StatusCode::UNAVAILABLE, "cannot issue an id: " + refusal);
  }
}

}  // namespace ferry::idgen
