#include "service/event_writer.h"

#include <chrono>

#include "ferry/framework/logging.h"

#include <spdlog/spdlog.h>

namespace ferry::like {

namespace {

int64_t SteadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

// The batch's events in one transaction; if it fails, each alone, so that an event that
// cannot be applied stays pending by itself (reclaimed after claim_idle_ms, then
// dead-lettered) instead of taking the batch with it.
Status EventWriter::ApplyAndAck(const std::vector<LikeEvent>& events, bool claimed) {
  std::vector<LikeEvent> done;
  std::vector<LikeEvent> batch;
  for (const LikeEvent& event : events) {
    if (claimed && event.deliveries > options_.max_deliveries) {
      Status s = database_->AddDeadLetter(event, "delivered " + std::to_string(event.deliveries) +
                                                     " times without being persisted");
      if (s.ok()) {
        Logger().error("like events: {} of {} dead-lettered after {} deliveries", event.entry_id,
                       event.stream, event.deliveries);
        done.push_back(event);
      }
      continue;
    }
    if (event.content_id <= 0 || event.version <= 0) {
      // Not an event the script writes: kept for a person to look at, out of the stream.
      if (database_->AddDeadLetter(event, "malformed stream entry").ok()) done.push_back(event);
      continue;
    }
    batch.push_back(event);
  }
  Status first_failure;
  int applied = 0;
  int changed = 0;
  if (batch.empty() || database_->ApplyBatch(batch, &applied, &changed).ok()) {
    done.insert(done.end(), batch.begin(), batch.end());
  } else {
    for (const LikeEvent& event : batch) {
      bool one_applied = false;
      bool one_changed = false;
      Status s = database_->Apply(event, &one_applied, &one_changed);
      if (s.ok()) {
        done.push_back(event);
      } else if (first_failure.ok()) {
        first_failure = s;
      }
    }
  }
  Status acked = stream_->Ack(done);
  return !first_failure.ok() ? first_failure : acked;
}

Status EventWriter::Reclaim() {
  std::vector<LikeEvent> events;
  if (Status s = stream_->Claim(options_.consumer, options_.claim_idle_ms, options_.batch, &events);
      !s.ok()) {
    return s;
  }
  return ApplyAndAck(events, true);
}

bool EventWriter::Step() {
  const int64_t now = SteadyMs();
  if (now >= next_claim_ms_) {
    next_claim_ms_ = now + options_.claim_idle_ms;
    if (Status s = Reclaim(); !s.ok()) Logger().warn("like events: reclaim: {}", s.ToString());
  }
  const auto scope = stream_->SweepDue(now, options_.sweep_ms) ? RedisEventStream::Scope::kEvery
                                                               : RedisEventStream::Scope::kAppended;
  std::vector<LikeEvent> events;
  if (Status s = stream_->Read(options_.consumer, options_.batch, scope, &events); !s.ok()) {
    Logger().warn("like events: read: {}", s.ToString());
    return false;
  }
  if (Status s = ApplyAndAck(events, false); !s.ok()) {
    Logger().warn("like events: {}", s.ToString());
    return false;
  }
  return events.size() >= static_cast<size_t>(options_.batch);
}

Status EventWriter::Drain() {
  while (true) {
    std::vector<LikeEvent> events;
    if (Status s = stream_->Read(options_.consumer, options_.batch, RedisEventStream::Scope::kEvery,
                                 &events);
        !s.ok()) {
      return s;
    }
    if (events.empty()) return Status::Ok();
    if (Status s = ApplyAndAck(events, false); !s.ok()) return s;
  }
}

}  // namespace ferry::like
