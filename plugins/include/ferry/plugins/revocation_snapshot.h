#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>

namespace ferry::plugins {

// A list of revocations as of one moment: token ids, and per user the moment before which every
// token of theirs is revoked. What the stores of TokenRevocations check against.
struct RevocationSnapshot {
  std::set<std::string, std::less<>> token_ids;
  std::map<std::string, int64_t, std::less<>> users_before;  // user -> unix s

  bool Revoked(std::string_view token_id, std::string_view user, int64_t issued_unix_s) const {
    if (!token_id.empty() && token_ids.contains(token_id)) return true;
    const auto cutoff = users_before.find(user);
    return cutoff != users_before.end() && issued_unix_s < cutoff->second;
  }
};

}  // namespace ferry::plugins
