#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "ferry/framework/config_reader.h"

namespace ferry::plugins {

// The `exempt` list of a filter that checks a credential (`auth`, `user_token`): methods whose
// calls pass unchecked. One reader for both, so that the two lists mean exactly the same. A
// method is exempt only when named in full; every other one, including one added to a service
// later, is checked.
class ExemptMethods {
 public:
  // Reads `exempt: ["<full service>/<method>", ...]`, reporting an entry without a service.
  void Configure(config::ConfigReader& config) {
    config.StringList("exempt", &methods_);
    for (const std::string& method : methods_) {
      if (method.find('/') == std::string::npos) {
        config.Invalid("exempt", "expected <full service name>/<method>, got '" + method + "'");
      }
    }
  }

  // Of "<service>/<method>"; for NewMethodState, once per method, so that no call compares names.
  bool Contains(std::string_view full_name) const {
    return std::find(methods_.begin(), methods_.end(), full_name) != methods_.end();
  }

 private:
  std::vector<std::string> methods_;
};

}  // namespace ferry::plugins
