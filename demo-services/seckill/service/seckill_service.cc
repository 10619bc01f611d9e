#include "service/seckill_service.h"

#include "service/activity_rules.h"
#include "service/buyer_identity.h"
#include "service/cache_generation.h"
#include "service/reconciler.h"

namespace ferry::seckill {

namespace {

Status Invalid(const std::string& message) { return Status(StatusCode::INVALID_ARGUMENT, message); }

// For the answers a request can have recorded (not kCacheMissing).
PurchaseAnswer ToAnswer(ReserveAnswer answer) {
  switch (answer) {
    case ReserveAnswer::kAccepted:
      return ACCEPTED;
    case ReserveAnswer::kAlreadyJoined:
      return ALREADY_JOINED;
    default:
      return SOLD_OUT;
  }
}

const char* FailureReason(PurchaseAnswer answer) {
  return answer == ALREADY_JOINED ? kReasonAlreadyJoined : kReasonSoldOut;
}

}  // namespace

Status SeckillServiceImpl::CreateActivity(ServerContext&, const CreateActivityRequest& request,
                                          CreateActivityResponse* response) {
  if (Status s = ValidateNewActivity(request.activity()); !s.ok()) return s;
  ActivityRecord record = ToRecord(request.activity());
  if (Status s = core_->deps.store->CreateActivity(&record); !s.ok()) return s;
  core_->activities.Put(record);
  core_->status.Known(record.activity_id);
  response->set_activity_id(record.activity_id);
  return Status::Ok();
}

Status SeckillServiceImpl::Preheat(ServerContext&, const PreheatRequest& request,
                                   PreheatResponse* response) {
  ActivityRecord activity;
  if (Status s = core_->deps.store->GetActivity(request.activity_id(), &activity); !s.ok()) {
    return s;
  }
  bool already_loaded = true;
  int64_t stock = activity.remaining_stock;
  if (ReservationCache* cache = core_->deps.cache) {
    if (Status s = LoadCacheGeneration(*core_, &activity, request.force(), &already_loaded);
        !s.ok()) {
      return s;  // the activity stays closed
    }
    CacheSnapshot snapshot;
    if (Status s = cache->Snapshot(activity.activity_id, activity.sku_id, &snapshot); !s.ok()) {
      return s;
    }
    stock = snapshot.stock;
  }
  const bool was_open = activity.open;
  if (!was_open) {
    if (Status s = core_->deps.store->MarkOpen(activity.activity_id); !s.ok()) return s;
    activity.open = true;
  }
  core_->activities.Put(activity);
  core_->status.Known(activity.activity_id);
  core_->status.Invalidate(activity.activity_id);
  // A reload told the other providers itself (LoadCacheGeneration); a preheat that changed
  // nothing has nothing to tell them.
  if (stock > 0) {
    core_->ApplyStockSignal({StockSignal::Kind::kReopened, activity.activity_id, activity.sku_id,
                             activity.cache_epoch});
  }
  response->set_cached_stock(stock);
  response->set_already_open(was_open && already_loaded);
  return Status::Ok();
}

Status SeckillServiceImpl::GetActivity(ServerContext&, const ActivityRef& request,
                                       GetActivityResponse* response) {
  std::shared_ptr<const ActivityStatus> status;
  if (Status s = core_->status.Get(request.activity_id(), &status); !s.ok()) return s;
  const ActivityRecord& activity = status->activity;
  *response->mutable_activity() = ToProto(activity);
  response->set_state(activity.open ? OPEN : CLOSED);
  // A purchase here that just found none left is newer than the status.
  const int64_t now = core_->deps.now_ms();
  response->set_sold_out(status->sold_out ||
                         core_->sold_out.IsSoldOut(activity.activity_id, activity.sku_id, now));
  response->set_remaining(status->remaining);
  response->set_as_of_ms(status->as_of_ms);
  return Status::Ok();
}

Status SeckillServiceImpl::Purchase(ServerContext& context, const PurchaseRequest& sent,
                                    PurchaseResponse* response) {
  // The purchase is the token's user's, whatever user id the request carries (or none).
  PurchaseRequest request;
  if (Status s = BuyerOf(context, sent.user_id(), request.mutable_user_id()); !s.ok()) return s;
  request.set_activity_id(sent.activity_id());
  request.set_sku_id(sent.sku_id());
  request.set_request_id(sent.request_id());
  if (Status s = ValidatePurchase(request); !s.ok()) return s;
  const RequestScope scope{request.activity_id(), request.sku_id(), request.user_id(),
                           request.request_id()};
  const std::string key = RequestKeyText(scope);
  if (auto earlier = core_->answers.Find(key)) {
    response->set_answer(earlier->answer);
    response->set_message("replayed");
    return Status::Ok();
  }
  ActivityRecord activity;
  Status s = core_->activities.Get(request.activity_id(), &activity);
  if (s.code() == StatusCode::NOT_FOUND) {
    response->set_answer(NOT_FOUND);
    response->set_message(s.message());
    return Status::Ok();
  }
  if (!s.ok()) return s;
  const int64_t now = core_->deps.now_ms();
  // Window answers are not remembered: they say nothing about stock or the user. A request
  // decided before the sale ended keeps that decision.
  if (auto gate = GateFor(activity, request.sku_id(), now)) {
    // Past its start but not open here may only mean this provider's copy of the activity
    // predates its preheat elsewhere, where this very request may have been decided.
    const bool maybe_stale = *gate == NOT_STARTED && now >= activity.start_time_ms;
    if (*gate == ENDED || maybe_stale) {
      if (Status s = RecordedAnswer(scope, &*gate); !s.ok()) return s;
    }
    response->set_answer(*gate);
    return Status::Ok();
  }
  bool busy = false;
  if (Status s = Entrance(context, request, sent.admission_token(), response, &busy);
      !s.ok() || busy) {
    return s;
  }
  // One decision per request id in this provider: a retry arriving while the first attempt is
  // still being decided waits for its answer instead of taking one from the sold-out flag.
  if (auto earlier = core_->answers.BeginDecision(key)) {
    response->set_answer(earlier->answer);
    response->set_message("replayed");
    return Status::Ok();
  }
  PurchaseAnswer answer = SOLD_OUT;
  if (core_->sold_out.IsSoldOut(activity.activity_id, activity.sku_id, now)) {
    // The flag is a shortcut for new requests only: one decided elsewhere (a retry of an
    // attempt that got the last unit after its client gave up) keeps that decision.
    s = RecordedAnswer(scope, &answer);
  } else {
    s = Decide(activity, request, &answer);
    if (s.ok() && answer == SOLD_OUT) {
      // Decide may have read a newer copy of the activity (a generation loaded elsewhere):
      // the signal names the generation that refused.
      ActivityRecord decided_in = activity;
      (void)core_->activities.Get(activity.activity_id, &decided_in);
      core_->AnnounceSoldOut(activity.activity_id, activity.sku_id, decided_in.cache_epoch);
    }
    // A refusal Decide made is recorded (the cache's requests hash, or the database) and
    // replayed ever after: GetResult's answer for it is final already.
    if (s.ok() && answer != ACCEPTED) {
      GetResultResponse refused;
      refused.set_state(FAILED);
      refused.set_reason(FailureReason(answer));
      core_->results.Remember(key, refused);
    }
  }
  if (!s.ok()) {
    core_->answers.Abandon(key);
    return s;
  }
  core_->answers.Remember(key, {answer, activity.activity_id, activity.sku_id});
  core_->admission.Decided(activity.activity_id, activity.sku_id, request.user_id());
  response->set_answer(answer);
  return Status::Ok();
}

Status SeckillServiceImpl::RecordedAnswer(const RequestScope& scope, PurchaseAnswer* answer) {
  if (ReservationCache* cache = core_->deps.cache) {
    bool found = false;
    ReserveResult recorded;
    if (Status s = cache->FindRequest(scope, &found, &recorded); !s.ok()) return s;
    if (found) *answer = ToAnswer(recorded.answer);
    return Status::Ok();
  }
  RequestRecord decided;
  Status s = core_->deps.store->GetRequest(scope, &decided);
  if (s.code() == StatusCode::NOT_FOUND) return Status::Ok();
  if (!s.ok()) return s;
  *answer = decided.created                    ? ACCEPTED
            : decided.reason == kReasonSoldOut ? SOLD_OUT
                                               : ALREADY_JOINED;
  return Status::Ok();
}

Status SeckillServiceImpl::Decide(const ActivityRecord& activity, const PurchaseRequest& request,
                                  PurchaseAnswer* answer) {
  int64_t order_no = 0;
  if (Status s = core_->deps.next_order_no(&order_no); !s.ok()) return s;
  const int64_t now = core_->deps.now_ms();
  if (ReservationCache* cache = core_->deps.cache) {
    ReserveResult result;
    const ReserveRequest reserve{activity.activity_id, activity.sku_id, request.user_id(),
                                 request.request_id(), order_no,        now,
                                 activity.cache_epoch};
    Status s = cache->Reserve(reserve, &result);
    if (!s.ok()) return s;
    if (result.answer == ReserveAnswer::kOtherEpoch) {
      // This provider's copy of the activity may predate a preheat elsewhere that loaded a new
      // generation: ask the database once.
      ActivityRecord fresh;
      if (s = core_->activities.Reload(activity.activity_id, &fresh); !s.ok()) return s;
      if (fresh.cache_epoch != activity.cache_epoch) {
        ReserveRequest again = reserve;
        again.cache_epoch = fresh.cache_epoch;
        if (s = cache->Reserve(again, &result); !s.ok()) return s;
      }
    }
    if (result.answer == ReserveAnswer::kLoading) {
      return Status(StatusCode::UNAVAILABLE, "activity " + std::to_string(activity.activity_id) +
                                                 ": the reservation cache is being reloaded; "
                                                 "retry shortly");
    }
    if (result.answer == ReserveAnswer::kCacheMissing ||
        result.answer == ReserveAnswer::kOtherEpoch) {
      // The activity is open, so the cache had it: its data is gone, or is not the data the
      // database knows (restored from an older copy, a promoted replica, or keys another
      // activity of the same id left). Taking stock from the database here could oversell
      // against reservations still queued: the reconciler reloads it (under the activity's
      // lease), and purchases wait for that.
      core_->RequestReconcile();
      return Status(StatusCode::UNAVAILABLE,
                    "activity " + std::to_string(activity.activity_id) +
                        (result.answer == ReserveAnswer::kCacheMissing
                             ? ": the reservation cache lost its data; it is being reloaded"
                             : ": the reservation cache does not hold the generation the "
                               "database records (lost or out-of-date data); it is being "
                               "reloaded"));
    }
    *answer = ToAnswer(result.answer);
    return Status::Ok();
  }
  const OrderDraft draft{.activity_id = activity.activity_id,
                         .sku_id = activity.sku_id,
                         .user_id = request.user_id(),
                         .request_id = request.request_id(),
                         .order_no = order_no,
                         .created_ms = now,
                         .pay_deadline_ms = now + int64_t{activity.pay_timeout_s} * 1000,
                         .amount_cents = activity.price_cents,
                         .currency = core_->deps.currency};
  PlaceResult placed;
  if (Status s = core_->deps.store->PlaceOrder(draft, &placed); !s.ok()) return s;
  switch (placed.outcome) {
    case PlaceOutcome::kCreated:
      *answer = ACCEPTED;
      break;
    case PlaceOutcome::kSoldOut:
      *answer = SOLD_OUT;
      break;
    case PlaceOutcome::kAlreadyJoined:
      *answer = ALREADY_JOINED;
      break;
  }
  return Status::Ok();
}

Status SeckillServiceImpl::GetResult(ServerContext& context, const GetResultRequest& request,
                                     GetResultResponse* response) {
  std::string user;
  if (Status s = BuyerOf(context, request.user_id(), &user); !s.ok()) return s;
  if (request.request_id().empty()) return Invalid("request_id: must not be empty");
  // Only the caller's own requests: another user's request id is unknown here.
  const RequestScope scope{request.activity_id(), request.sku_id(), user, request.request_id()};
  // Only fully scoped lookups are remembered: an unscoped one answers for whichever single
  // purchase used the id, which a later purchase with the same id would change.
  const bool scoped = scope.activity_id > 0 && scope.sku_id > 0;
  const std::string key = scoped ? RequestKeyText(scope) : std::string();
  if (scoped) {
    if (auto decided = core_->results.Find(key)) {
      *response = *decided;
      return Status::Ok();
    }
  }
  RequestRecord decided;
  Status s = core_->deps.store->GetRequest(scope, &decided);
  if (s.ok()) {
    response->set_state(decided.created ? CREATED : FAILED);
    if (decided.created) {
      response->set_order_no(decided.order_no);
    } else {
      response->set_reason(decided.reason);
    }
    if (scoped) core_->results.Remember(key, *response);  // the database's decisions are final
    return Status::Ok();
  }
  if (s.code() != StatusCode::NOT_FOUND) return s;

  // Not in the database yet: only a fully scoped request can be looked up further, since the
  // provider's answers and the cache's records are kept per (user, activity, sku, request id).
  if (scope.activity_id <= 0) {
    return Status(StatusCode::NOT_FOUND,
                  "request " + request.request_id() +
                      " has no order or decision in the database (give activity_id and sku_id "
                      "to see a pending one)");
  }
  // Not remembered: a refusal this provider gave from its flag alone is recorded nowhere, and a
  // retry elsewhere may still be accepted (and found in the database above).
  if (auto earlier = core_->answers.Find(RequestKeyText(scope))) {
    if (earlier->answer != ACCEPTED) {
      response->set_state(FAILED);
      response->set_reason(FailureReason(earlier->answer));
      return Status::Ok();
    }
  }
  if (core_->deps.cache) {
    bool found = false;
    ReserveResult answered;
    if (s = core_->deps.cache->FindRequest(scope, &found, &answered); !s.ok()) return s;
    if (found) {
      response->set_state(answered.answer == ReserveAnswer::kAccepted ? PENDING : FAILED);
      if (answered.answer == ReserveAnswer::kSoldOut) response->set_reason(kReasonSoldOut);
      if (answered.answer == ReserveAnswer::kAlreadyJoined) {
        response->set_reason(kReasonAlreadyJoined);
      }
      // A refusal the cache recorded is replayed forever; an acceptance is PENDING, which the
      // order writer still decides.
      if (scoped) core_->results.Remember(key, *response);
      return Status::Ok();
    }
  }
  return Status(StatusCode::NOT_FOUND, "request " + request.request_id() + " unknown");
}

Status SeckillServiceImpl::Reconcile(ServerContext&, const ActivityRef& request,
                                     ReconcileResponse* response) {
  return ReconcileActivity(*core_, request.activity_id(), response);
}

}  // namespace ferry::seckill
