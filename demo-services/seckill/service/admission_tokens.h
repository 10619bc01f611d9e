#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ferry/codec/status.h"

namespace ferry::seckill {

// Admissions as tokens every provider can check without asking anybody: "<expires_ms>.<mac>",
// the mac a hex HMAC-SHA256 under the providers' shared `admission.key` of the activity, sku,
// user and expiry. A token names no user or activity of its own, so it is worth nothing to
// anybody else or in another sale.
class AdmissionTokens {
 public:
  explicit AdmissionTokens(std::string key) : key_(std::move(key)) {}

  std::string Mint(int64_t activity_id, int64_t sku_id, std::string_view user,
                   int64_t expires_ms) const;
  // OK, or PERMISSION_DENIED saying why: malformed, another user's, activity's or sku's, or
  // lapsed at `now_ms`.
  Status Check(std::string_view token, int64_t activity_id, int64_t sku_id, std::string_view user,
               int64_t now_ms) const;

 private:
  std::string Mac(int64_t activity_id, int64_t sku_id, std::string_view user,
                  int64_t expires_ms) const;

  const std::string key_;
};

}  // namespace ferry::seckill
