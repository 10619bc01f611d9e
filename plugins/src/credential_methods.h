#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "ferry/framework/config_reader.h"

namespace ferry::plugins {

// How a filter that checks a credential (`auth`, `user_token`) treats each method: `exempt`
// lists methods whose calls pass unchecked (a credential sent anyway is not read), `optional`
// those whose calls may come without one (one that comes is checked, and a bad one refused: a
// later `authz` says who may call them); every other method, including one a service gains
// later, needs a valid credential. One reader for both filters, so that the lists mean exactly
// the same. A method is listed only when named in full.
class CredentialMethods {
 public:
  enum class Need { kRequired, kOptional, kExempt };

  // Reads `exempt` and `optional`: ["<full service>/<method>", ...], reporting an entry without
  // a service, and one in both lists.
  void Configure(config::ConfigReader& config) {
    Read(config, "exempt", &exempt_);
    Read(config, "optional", &optional_);
    for (const std::string& method : optional_) {
      if (Contains(exempt_, method)) {
        config.Invalid("optional",
                       "'" + method + "' is exempt already (exempt calls are not read)");
      }
    }
  }

  // Of "<service>/<method>"; for NewMethodState, once per method, so that no call compares names.
  Need For(std::string_view full_name) const {
    if (Contains(exempt_, full_name)) return Need::kExempt;
    return Contains(optional_, full_name) ? Need::kOptional : Need::kRequired;
  }

 private:
  static void Read(config::ConfigReader& config, std::string_view key,
                   std::vector<std::string>* out) {
    config.StringList(key, out);
    for (const std::string& method : *out) {
      if (method.find('/') == std::string::npos) {
        config.Invalid(key, "expected <full service name>/<method>, got '" + method + "'");
      }
    }
  }
  static bool Contains(const std::vector<std::string>& methods, std::string_view full_name) {
    return std::find(methods.begin(), methods.end(), full_name) != methods.end();
  }

  std::vector<std::string> exempt_;
  std::vector<std::string> optional_;
};

}  // namespace ferry::plugins
