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
  const OrderDraft draft{.activity_id = event.activity_id,
                         .sku_id = event.sku_id,
                         .user_id = event.user_id,
                         .request_id = event.request_id,
                         .order_no = event.order_no,
                         .created_ms = now,
                         .pay_deadline_ms = now + int64_t{activity.pay_timeout_s} * 1000,
                         .cache_epoch = event.cache_epoch,
                         .cache_seq = event.cache_seq,
                         .amount_cents = activity.price_cents,
                         .currency = core_->deps.currency};
  PlaceResult placed;
  if (Status s = core_->deps.store->PlaceOrder(draft, &placed); !s.ok()) {
    Metrics().orders_failed->Increment();
    Logger().warn("order writer: request {}: {}", event.request_id, s.ToString());
    return s;
  }
  Metrics().OrdersWith(placed.outcome)->Increment();
  if (placed.sequence_reused) {
    // The cache handed this generation's sequence number out twice: it lost reservations (a
    // restore, a lagging replica promoted). It sells no more until reloaded from the database.
    Logger().error(
        "order writer: activity {}: reservation {} of generation {} was written before: the "
        "cache lost reservations; closing the generation",
        event.activity_id, event.cache_seq, event.cache_epoch);
    bool marked = false;
    if (Status s = core_->deps.cache->MarkStale(event.activity_id, event.sku_id, event.cache_epoch,
                                                &marked);
        !s.ok()) {
      return s;  // redelivered: the replay finds the order and marks again
    }
    core_->RequestReconcile();
  }
  if (placed.outcome == PlaceOutcome::kAlreadyJoined) {
    ReleaseOutcome released = ReleaseOutcome::kReleased;
    // Into the generation the decision read under the stock row's lock: a reload either
    // counted the unit already (its release key is marked released) or loaded after it.
    Status s = core_->deps.cache->Release(event.activity_id, event.sku_id,
                                          "r:" + RequestField(event.user_id, event.request_id),
                                          placed.cache_epoch, &released);
    if (s.ok() && released == ReleaseOutcome::kNotCurrent) {
      s = Status(StatusCode::UNAVAILABLE,
                 "the cache does not hold generation " + std::to_string(placed.cache_epoch));
    }
    if (!s.ok()) {
      Logger().warn("order writer: release for request {}: {}", event.request_id, s.ToString());
      return s;  // redelivered later; the decision replays and the release is retried
    }
    if (released == ReleaseOutcome::kReleased) {
      core_->AnnounceReopened(event.activity_id, event.sku_id, placed.cache_epoch);
    }
  }
  return Status::Ok();
}

}  // namespace ferry::seckill
