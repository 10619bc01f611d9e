#pragma once

#include <functional>
#include <memory>
#include <string>

#include "ferry/codec/status.h"
#include "ferry/framework/config_reader.h"

namespace ferry::seckill {

// What a buyer answered the human check (a captcha or slider) with, and who asks.
struct HumanCheckAnswer {
  std::string user;
  std::string client_address;
  std::string response;  // AdmitRequest.human_check
};

// The verifier of a human check: the adapter of a captcha vendor, which usually asks the
// vendor's verification endpoint whether `response` is a solved challenge.
class HumanCheck {
 public:
  virtual ~HumanCheck() = default;
  // OK: a person solved it. PERMISSION_DENIED: not solved, or not this buyer's. UNAVAILABLE:
  // the verifier cannot tell now (the buyer may ask again).
  virtual Status Verify(const HumanCheckAnswer& answer) = 0;
};

// Reads a verifier's own keys from `admission.human_check` (reporting mistakes through it) and
// makes it; null after a mistake.
using HumanCheckKind = std::function<std::shared_ptr<HumanCheck>(config::ConfigReader& section)>;

// Makes `kind` a value of `admission.human_check.kind`, for this process's configs: how a
// deployment plugs in its captcha vendor, and tests their double. Before configs are read.
void RegisterHumanCheck(const std::string& kind, HumanCheckKind make);

// Reads `admission.human_check` ({kind: ..., the kind's keys}); null when it is absent.
std::shared_ptr<HumanCheck> ReadHumanCheck(config::ConfigReader& admission);

}  // namespace ferry::seckill
