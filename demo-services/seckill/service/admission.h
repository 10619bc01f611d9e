#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "seckill.pb.h"
#include "service/admission_tokens.h"
#include "service/human_check.h"
#include "storage/admission_line.h"
#include "storage/order_records.h"

namespace ferry::seckill {

// `admission:` (README, "Admission"): who may purchase in a running sale.
struct AdmissionOptions {
  bool enabled = false;  // admission.enabled: Purchase then needs Admit's token
  // At most this many admissions per unit still on sale are out at once (admission.multiple).
  int64_t multiple = 2;
  int64_t token_ttl_ms = 60000;   // admission.token_ttl_ms: how long an admission lasts
  int64_t wait_ttl_ms = 10000;    // admission.wait_ttl_ms: a waiter not asking this long leaves
  int64_t max_waiting = 100000;   // admission.max_waiting: buyers in line at most
  int64_t retry_after_ms = 1000;  // admission.retry_after_ms: ADMISSION_WAIT's hint
  std::string key;                // admission.key / key_file: signs admission tokens
  std::shared_ptr<HumanCheck> human_check;  // admission.human_check; null: none
};

// The entrance of a sale (the seeds' "100k buyers, 10 units"): Admit lets at most
// multiple x remaining buyers in at once, in the order they came, after the human check; the
// others wait with their position or hear it sold out. Purchase then needs the admission's
// token. Which buyers may ask at all (the blacklist, the window) is the handler's.
class Admission {
 public:
  Admission(AdmissionOptions options, AdmissionLine* line);

  bool enabled() const { return options_.enabled; }

  // The turn of `who` at a running sale that holds `remaining` units (-1: not known now).
  // PERMISSION_DENIED when the human check fails; UNAVAILABLE when it or the line cannot answer.
  Status Admit(const HumanCheckAnswer& who, int64_t activity_id, int64_t sku_id, int64_t remaining,
               int64_t now_ms, AdmitResponse* response);
  // OK when admission is off or `token` admits `user`; FAILED_PRECONDITION when it is missing,
  // PERMISSION_DENIED when it is not this user's, activity's or sku's, or lapsed.
  Status CheckToken(const std::string& token, int64_t activity_id, int64_t sku_id,
                    const std::string& user, int64_t now_ms) const;
  // `user` decided a purchase: their place among the admitted goes to the next in line. Best
  // effort: an admission left behind lapses by itself.
  void Decided(int64_t activity_id, int64_t sku_id, const std::string& user);

 private:
  const AdmissionOptions options_;
  AdmissionLine* const line_;
  const AdmissionTokens tokens_;
};

}  // namespace ferry::seckill
