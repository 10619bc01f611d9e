#include "service/order_writer.h"

#include <spdlog/spdlog.h>

#include "ferry/framework/logging.h"
#include "service/dead_letter.h"
#include "service/seckill_metrics.h"

namespace ferry::seckill {

bool OrderWriter::Step() {
  const int64_t now = core_->deps.now_ms();
  if (open_.empty() || now - refreshed_ms_ >= options_.refresh_ms) {
    std::vector<ActivityRecord> open;
    // Ended activities are still drained for a while: their queues may hold late events.
    constexpr int64_t kDrainAfterEndMs = 3600 * 1000;
    if (Status s = core_->deps.store->ListOpenActivities(now - kDrainAfterEndMs, &open); s.ok()) {
      open_ = std::move(open);
      refreshed_ms_ = now;
    } else {
      Logger().warn("order writer: cannot list open activities: {}", s.ToString());
    }
  }
  bool wrote = false;
  for (const ActivityRecord& activity : open_) wrote |= Drain(activity);
  return wrote;
}

bool OrderWriter::Drain(const ActivityRecord& activity) {
  ReservationCache& cache = *core_->deps.cache;
  std::vector<ReservationEvent> events;
  Status s = cache.ClaimStale(activity.activity_id, activity.sku_id, options_.consumer,
                              options_.claim_idle_ms, options_.batch, &events);
  if (s.ok() && events.empty()) {
    s = cache.ReadEvents(activity.activity_id, activity.sku_id, options_.consumer, options_.batch,
                         &events);
  }
  if (!s.ok()) {
    Logger().warn("order writer: activity {}: {}", activity.activity_id, s.ToString());
    return false;
  }
  std::vector<std::string> acknowledged;
  bool given_up = false;
  for (const ReservationEvent& event : events) {
    if (!event.malformed.empty()) {
      given_up |= GiveUpIfDue(activity, event, kReasonUnparsable, event.malformed);
      continue;
    }
    s = WriteOrder(activity, event);
    if (s.ok()) {
      acknowledged.push_back(event.event_id);
    } else if (s.code() != StatusCode::UNAVAILABLE && s.code() != StatusCode::ABORTED) {
      given_up |= GiveUpIfDue(activity, event, kReasonWriteFailed, s.ToString());
    }
  }
  if (!acknowledged.empty()) {
    if (s = cache.Ack(activity.activity_id, activity.sku_id, acknowledged); !s.ok()) {
      // Unacknowledged events come back after claim_idle_ms and replay harmlessly.
      Logger().warn("order writer: ack failed: {}", s.ToString());
    }
  }
  if (options_.trim_acknowledged && (!acknowledged.empty() || given_up)) {
    int64_t removed = 0;
    if (s = cache.TrimAcknowledged(activity.activity_id, activity.sku_id, &removed); !s.ok()) {
      Logger().warn("order writer: activity {}: trim failed: {}", activity.activity_id,
                    s.ToString());
    }
  }
  return !events.empty();
}

bool OrderWriter::GiveUpIfDue(const ActivityRecord& activity, const ReservationEvent& event,
                              const char* reason, const std::string& detail) {
  if (event.deliveries < options_.max_deliveries) return false;
  if (Status s = GiveUpEvent(*core_, activity, event, reason, detail, options_.max_dead_letters);
      !s.ok()) {
    Logger().warn("order writer: activity {}: cannot give event {} up: {}", activity.activity_id,
                  event.event_id, s.ToString());
    return false;
  }
  return true;
}

bool OrderWriter::Write(const ActivityRecord& activity, const ReservationEvent& event) {
  return WriteOrder(activity, event).ok();
}

Status OrderWriter::WriteOrder(const ActivityRecord& activity, const ReservationEvent& event) {
  // The order is created, and the buyer can learn of it, only now: the pay timeout runs from
  // here, not from the reservation, so a writer that lagged does not write orders already due.
  if (event.cache_epoch != 0 && event.cache_epoch != activity.cache_epoch) {
    // Not the current generation: one of this activity's earlier ones (a reservation accepted
    // before a reload, still to be written), or keys another activity of the same id left.
    bool ours = false;
    if (Status s = core_->deps.store->KnowsCacheEpoch(event.activity_id, event.sku_id,
                                                      event.cache_epoch, &ours);
        !s.ok()) {
      Logger().warn("order writer: request {}: {}", event.request_id, s.ToString());
      return s;
    }
    if (!ours) {
      Logger().warn(
          "order writer: request {} was reserved in generation {}, unknown to activity "
          "{}; dropped",
          event.request_id, event.cache_epoch, event.activity_id);
      return Status::Ok();
    }
  }
  const int64_t now = core_->deps.now_ms();
  OrderDraft draft{event.activity_id,
                   event.sku_id,
                   event.user_id,
                   event.request_id,
                   event.order_no,
                   now,
                   now + int64_t{activity.pay_timeout_s} * 1000,
                   event.cache_epoch,
                   event.cache_seq};
  PlaceResult placed;
  if (Status s = core_->deps.store->PlaceOrder(draft, &placed); !s.ok()) {
    Metrics().orders_failed->Increment();
    Logger().warn("order writer: request {}: {}", event.request_id, s.ToString());
    return s;
  }
  Metrics().OrdersWith(placed.outcome)->Increment();
  if (placed.outcome == PlaceOutcome::kAlreadyJoined) {
    ReleaseOutcome released = ReleaseOutcome::kReleased;
    Status s = core_->deps.cache->Release(event.activity_id, event.sku_id,
                                          "r:" + RequestField(event.user_id, event.request_id),
                                          activity.cache_epoch, &released);
    if (s.ok() && released == ReleaseOutcome::kNotCurrent) {
      refreshed_ms_ = 0;  // this writer's copy of the generation may be out of date
      s = Status(StatusCode::UNAVAILABLE,
                 "the cache does not hold generation " + std::to_string(activity.cache_epoch));
    }
    if (!s.ok()) {
      Logger().warn("order writer: release for request {}: {}", event.request_id, s.ToString());
      return s;  // redelivered later; the decision replays and the release is retried
    }
    if (released == ReleaseOutcome::kReleased) {
      core_->sold_out.Clear(event.activity_id, event.sku_id);
    }
  }
  return Status::Ok();
}

}  // namespace ferry::seckill
