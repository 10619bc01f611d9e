#pragma once

#include <cstdint>
#include <string_view>

#include "ferry/framework/config_reader.h"

namespace ferry::plugins {

// The revoked user tokens a `user_token` filter refuses although they are validly signed and
// unexpired (`revocations: {kind: ...}`): single tokens by their id, and every token of a user
// issued before a moment (a password change, a banned account). Registered by kind ("memory":
// the list in the config; "redis": ferry::redis_filters, shared by every provider). One
// instance per filter.
class TokenRevocations {
 public:
  static constexpr std::string_view kExtensionKind = "user_token_revocations";

  virtual ~TokenRevocations() = default;
  // Reads its keys of the `revocations:` mapping (`kind` is the filter's). Called once.
  virtual void Configure(config::ConfigReader& config) = 0;
  // Whether the token is revoked. `token_id` is empty for tokens that carry none (u1). Called
  // on the server's IO threads for every call, concurrently: it must not block, so a shared
  // list is consulted from a copy kept in memory.
  virtual bool Revoked(std::string_view token_id, std::string_view user,
                       int64_t issued_unix_s) const = 0;
};

}  // namespace ferry::plugins
