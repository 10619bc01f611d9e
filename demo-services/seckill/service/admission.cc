#include "service/admission.h"

#include <spdlog/spdlog.h>

#include "ferry/framework/logging.h"
#include "service/seckill_metrics.h"

namespace ferry::seckill {

Admission::Admission(AdmissionOptions options, AdmissionLine* line)
    : options_(std::move(options)), line_(line), tokens_(options_.key) {}

Status Admission::Admit(const HumanCheckAnswer& who, int64_t activity_id, int64_t sku_id,
                        int64_t remaining, int64_t now_ms, AdmitResponse* response) {
  if (remaining == 0) {
    Metrics().CountEntrance("sold_out");
    response->set_answer(ADMISSION_SOLD_OUT);
    return Status::Ok();
  }
  if (options_.human_check) {
    if (Status s = options_.human_check->Verify(who); !s.ok()) return s;
  }
  const AdmissionAsk ask{.activity_id = activity_id,
                         .sku_id = sku_id,
                         .user = who.user,
                         .now_ms = now_ms,
                         .capacity = remaining < 0 ? 0 : remaining * options_.multiple,
                         .admission_ttl_ms = options_.token_ttl_ms,
                         .wait_ttl_ms = options_.wait_ttl_ms,
                         .max_waiting = options_.max_waiting};
  AdmissionTurn turn;
  if (Status s = line_->Ask(ask, &turn); !s.ok()) return s;
  if (!turn.admitted) {
    Metrics().CountEntrance("waiting");
    response->set_answer(ADMISSION_WAIT);
    response->set_position(turn.position);
    response->set_retry_after_ms(options_.retry_after_ms);
    return Status::Ok();
  }
  Metrics().CountEntrance("admitted");
  response->set_answer(ADMITTED);
  response->set_admission_token(tokens_.Mint(activity_id, sku_id, who.user, turn.expires_ms));
  response->set_expires_at_ms(turn.expires_ms);
  return Status::Ok();
}

Status Admission::CheckToken(const std::string& token, int64_t activity_id, int64_t sku_id,
                             const std::string& user, int64_t now_ms) const {
  if (!options_.enabled) return Status::Ok();
  if (token.empty()) {
    return Status(StatusCode::FAILED_PRECONDITION,
                  "admission_token: missing; this sale admits buyers first (Admit)");
  }
  return tokens_.Check(token, activity_id, sku_id, user, now_ms);
}

void Admission::Decided(int64_t activity_id, int64_t sku_id, const std::string& user) {
  if (!options_.enabled) return;
  if (Status s = line_->Leave(activity_id, sku_id, user); !s.ok()) {
    Logger().debug("seckill admission: activity {}: {} keeps their place until it lapses: {}",
                   activity_id, user, s.ToString());
  }
}

}  // namespace ferry::seckill
