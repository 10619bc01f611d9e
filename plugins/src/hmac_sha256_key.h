#pragma once

#include <initializer_list>
#include <memory>
#include <optional>
#include <string_view>

#include "hmac_sha256.h"

namespace ferry::plugins {

// HMAC-SHA256 (RFC 2104) under one key, keyed once: the SHA-256 states after the key's inner
// and outer pad blocks are computed when the key is made, and every MAC starts from copies of
// them (two plain struct copies), so a MAC costs the hashing of its message and two final
// blocks. Through OpenSSL's EVP_MAC, duplicating a keyed context allocates and copies three
// digest contexts: several times the cost of the whole MAC of a small request. Thread-safe:
// the keyed states are only read.
class HmacSha256Key {
 public:
  explicit HmacSha256Key(std::string_view key);
  ~HmacSha256Key();
  HmacSha256Key(const HmacSha256Key&) = delete;
  HmacSha256Key& operator=(const HmacSha256Key&) = delete;

  // False when OpenSSL could not key the state; every Mac() then fails.
  bool ok() const { return keyed_ != nullptr; }
  // The MAC of the concatenation of `parts`; nullopt when OpenSSL fails, which callers must
  // treat as "cannot verify".
  std::optional<Sha256Digest> Mac(std::initializer_list<std::string_view> parts) const;

 private:
  struct KeyedStates;
  std::unique_ptr<const KeyedStates> keyed_;
};

}  // namespace ferry::plugins
