#include "service/activity_rules.h"

#include <string>

namespace ferry::seckill {

namespace {

Status Invalid(const std::string& message) { return Status(StatusCode::INVALID_ARGUMENT, message); }

Status ValidateId(const std::string& value, const char* field) {
  if (value.empty()) return Invalid(std::string(field) + ": must not be empty");
  if (value.size() > kMaxIdLength) {
    return Invalid(std::string(field) + ": longer than " + std::to_string(kMaxIdLength) + " bytes");
  }
  return Status::Ok();
}

}  // namespace

Status ValidateNewActivity(const Activity& a) {
  if (a.sku_id() <= 0) return Invalid("activity.sku_id: must be > 0");
  if (a.name().empty() || a.name().size() > 200) {
    return Invalid("activity.name: must be 1..200 bytes");
  }
  if (a.stock() <= 0) return Invalid("activity.stock: must be > 0");
  if (a.start_time_ms() <= 0) return Invalid("activity.start_time_ms: must be > 0");
  if (a.end_time_ms() <= a.start_time_ms()) {
    return Invalid("activity.end_time_ms: must be after start_time_ms");
  }
  if (a.price_cents() < 0) return Invalid("activity.price_cents: must be >= 0");
  if (a.pay_timeout_s() == 0) return Invalid("activity.pay_timeout_s: must be > 0");
  return Status::Ok();
}

Status ValidatePurchase(const PurchaseRequest& r) {
  if (r.activity_id() <= 0) return Invalid("activity_id: must be > 0");
  if (r.sku_id() <= 0) return Invalid("sku_id: must be > 0");
  if (Status s = ValidateId(r.user_id(), "user_id"); !s.ok()) return s;
  return ValidateId(r.request_id(), "request_id");
}

std::optional<PurchaseAnswer> GateFor(const ActivityRecord& activity, int64_t sku_id,
                                      int64_t now_ms) {
  if (sku_id != activity.sku_id) return NOT_FOUND;
  if (!activity.open || now_ms < activity.start_time_ms) return NOT_STARTED;
  if (now_ms >= activity.end_time_ms) return ENDED;
  return std::nullopt;
}

ActivityRecord ToRecord(const Activity& a) {
  ActivityRecord r;
  r.activity_id = a.activity_id();
  r.sku_id = a.sku_id();
  r.name = a.name();
  r.initial_stock = a.stock();
  r.start_time_ms = a.start_time_ms();
  r.end_time_ms = a.end_time_ms();
  r.price_cents = a.price_cents();
  r.pay_timeout_s = a.pay_timeout_s();
  return r;
}

Activity ToProto(const ActivityRecord& r) {
  Activity a;
  a.set_activity_id(r.activity_id);
  a.set_sku_id(r.sku_id);
  a.set_name(r.name);
  a.set_stock(r.initial_stock);
  a.set_start_time_ms(r.start_time_ms);
  a.set_end_time_ms(r.end_time_ms);
  a.set_price_cents(r.price_cents);
  a.set_pay_timeout_s(r.pay_timeout_s);
  return a;
}

}  // namespace ferry::seckill
