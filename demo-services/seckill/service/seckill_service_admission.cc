// SeckillServiceImpl's entrance: Admit, the blacklist, and what Purchase checks before stock.
#include "service/activity_rules.h"
#include "service/buyer_identity.h"
#include "service/seckill_metrics.h"
#include "service/seckill_service.h"

namespace ferry::seckill {
namespace {

Status Blacklisted() {
  Metrics().CountEntrance("blacklisted");
  return Status(StatusCode::PERMISSION_DENIED, "this buyer is not admitted to sales");
}

AdmitAnswer ToAdmitAnswer(PurchaseAnswer gate) {
  switch (gate) {
    case NOT_STARTED:
      return ADMISSION_NOT_STARTED;
    case ENDED:
      return ADMISSION_ENDED;
    default:
      return ADMISSION_NOT_FOUND;
  }
}

}  // namespace

Status SeckillServiceImpl::Admit(ServerContext& context, const AdmitRequest& request,
                                 AdmitResponse* response) {
  if (!core_->admission.enabled()) {
    return Status(StatusCode::FAILED_PRECONDITION,
                  "this service admits every buyer (admission.enabled is false): purchase "
                  "directly");
  }
  std::string user;
  if (Status s = BuyerOf(context, "", &user); !s.ok()) return s;
  if (core_->blacklist.Blocked(user, context.client_address())) return Blacklisted();
  std::shared_ptr<const ActivityStatus> status;
  Status s = core_->status.Get(request.activity_id(), &status);
  if (s.code() == StatusCode::NOT_FOUND) {
    response->set_answer(ADMISSION_NOT_FOUND);
    return Status::Ok();
  }
  if (!s.ok()) return s;
  const ActivityRecord& activity = status->activity;
  const int64_t now = core_->deps.now_ms();
  if (auto gate = GateFor(activity, request.sku_id(), now)) {
    response->set_answer(ToAdmitAnswer(*gate));
    return Status::Ok();
  }
  const bool sold_out =
      status->sold_out || core_->sold_out.IsSoldOut(activity.activity_id, activity.sku_id, now);
  return core_->admission.Admit(
      HumanCheckAnswer{user, context.client_address(), request.human_check()}, activity.activity_id,
      activity.sku_id, sold_out ? 0 : status->remaining, now, response);
}

Status SeckillServiceImpl::Blacklist(ServerContext&, const BlacklistRequest& request,
                                     BlacklistResponse* response) {
  const auto list = [](const auto& entries) {
    return std::vector<std::string>(entries.begin(), entries.end());
  };
  const BlacklistChange change{list(request.add_users()), list(request.remove_users()),
                               list(request.add_addresses()), list(request.remove_addresses())};
  BlacklistEntries entries;
  if (Status s = core_->blacklist.Change(change, &entries); !s.ok()) return s;
  response->set_users(static_cast<int64_t>(entries.users.size()));
  response->set_addresses(static_cast<int64_t>(entries.addresses.size()));
  return Status::Ok();
}

Status SeckillServiceImpl::Entrance(const ServerContext& context, const PurchaseRequest& request,
                                    const std::string& admission_token,
                                    PurchaseResponse* busy_response, bool* busy) {
  *busy = false;
  if (core_->blacklist.Blocked(request.user_id(), context.client_address())) return Blacklisted();
  const int64_t now = core_->deps.now_ms();
  if (Status s = core_->admission.CheckToken(admission_token, request.activity_id(),
                                             request.sku_id(), request.user_id(), now);
      !s.ok()) {
    return s;
  }
  if (core_->deps.max_backlog <= 0) return Status::Ok();
  std::shared_ptr<const ActivityStatus> status;
  // A status that cannot be read now holds nobody back: the purchase finds out for itself.
  if (!core_->status.Get(request.activity_id(), &status).ok()) return Status::Ok();
  if (status->backlog > core_->deps.max_backlog) {
    *busy = true;
    Metrics().CountEntrance("busy");
    busy_response->set_answer(BUSY);
    busy_response->set_retry_after_ms(core_->deps.busy_retry_after_ms);
    busy_response->set_message("the order queue holds " + std::to_string(status->backlog) +
                               " orders not yet written (backpressure.max_backlog " +
                               std::to_string(core_->deps.max_backlog) + ")");
  }
  return Status::Ok();
}

}  // namespace ferry::seckill
