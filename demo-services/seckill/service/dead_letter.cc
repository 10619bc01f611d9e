#include "service/dead_letter.h"

#include <spdlog/spdlog.h>

#include "ferry/framework/logging.h"
#include "service/seckill_metrics.h"

namespace ferry::seckill {

namespace {

// Returns the reservation's unit to the cache generation `epoch` (the one the decision read
// under the stock row's lock, as an already-joined buyer's release does) unless the database
// decided it sold out (then the cache never had more than the database) or the cache did not
// accept the request.
Status Compensate(SeckillCore& core, int64_t epoch, const RequestScope& scope,
                  const RequestRecord& decided) {
  if (decided.reason == kReasonSoldOut) return Status::Ok();
  bool found = false;
  ReserveResult answered;
  if (Status s = core.deps.cache->FindRequest(scope, &found, &answered); !s.ok()) return s;
  if (!found || answered.answer != ReserveAnswer::kAccepted) return Status::Ok();
  ReleaseOutcome released = ReleaseOutcome::kReleased;
  if (Status s = core.deps.cache->Release(scope.activity_id, scope.sku_id,
                                          "r:" + RequestField(scope.user_id, scope.request_id),
                                          epoch, &released);
      !s.ok()) {
    return s;
  }
  if (released == ReleaseOutcome::kNotCurrent) {
    // A reload is under way (or the generation stopped selling): the event comes back, and
    // the replayed decision names the generation then current.
    return Status(StatusCode::UNAVAILABLE,
                  "the cache does not hold generation " + std::to_string(epoch));
  }
  if (released == ReleaseOutcome::kReleased) {
    core.AnnounceReopened(scope.activity_id, scope.sku_id, epoch);
  }
  return Status::Ok();
}

}  // namespace

Status GiveUpEvent(SeckillCore& core, const ActivityRecord& activity, const ReservationEvent& event,
                   const char* reason, const std::string& detail, int64_t max_letters) {
  ReservationCache& cache = *core.deps.cache;
  std::string note = detail;
  if (!event.user_id.empty() && !event.request_id.empty()) {
    // The queue is the activity's: its ids, not the event's (which may be what is broken).
    const RequestScope scope{activity.activity_id, activity.sku_id, event.user_id,
                             event.request_id};
    RequestRecord decided;
    int64_t epoch = 0;
    Status s = core.deps.store->FailRequest(scope, reason, &decided, &epoch);
    if (s.code() == StatusCode::UNAVAILABLE || s.code() == StatusCode::ABORTED) return s;
    if (!s.ok()) {
      note += "; not compensated: " + s.ToString();
    } else if (decided.created) {
      return cache.Ack(activity.activity_id, activity.sku_id, {event.event_id});
    } else if (s = Compensate(core, epoch, scope, decided); !s.ok()) {
      return s;
    }
  }
  bool moved = false;
  if (Status s = cache.DeadLetter(activity.activity_id, activity.sku_id, event.event_id, reason,
                                  note, max_letters, &moved);
      !s.ok()) {
    return s;
  }
  if (moved) {
    Metrics().DeadLettersWith(reason)->Increment();
    Logger().error(
        "order writer: activity {}: event {} (user {}, request {}) dead-lettered "
        "after {} deliveries: {}: {}",
        activity.activity_id, event.event_id, event.user_id, event.request_id, event.deliveries,
        reason, note);
  }
  return Status::Ok();
}

}  // namespace ferry::seckill
