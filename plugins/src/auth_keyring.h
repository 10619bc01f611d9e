#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ferry/framework/config_reader.h"
#include "hmac_sha256_key.h"

namespace ferry::plugins {

// The keys of an `auth` filter, by id: `keys: [{id, secret}, ...]`, or `secret: s` for one key
// whose id is "default". A server holds every key its clients may sign with, so that keys
// rotate without a flag day: add the new key to the servers, move the clients to it, then
// remove the old one.
class AuthKeyring {
 public:
  struct Key {
    std::string id;
    std::string secret;  // for the tokens before v3, which are keyed per call
    std::unique_ptr<HmacSha256Key> hmac;
    // The callers tokens of this key may name (patterns, `*` any run of characters); empty:
    // any. Without it, every holder of the key may sign as any caller.
    std::vector<std::string> callers;
    bool MaySign(std::string_view caller) const;
  };

  // Reads `secret` or `keys`, reporting through `config` a missing, empty or duplicate one. A
  // server's keys may list `callers` (`with_callers`).
  void Configure(config::ConfigReader& config, bool with_callers = false);

  const std::vector<Key>& keys() const { return keys_; }
  const Key* Find(std::string_view id) const;
  // "'k1', 'k2'", for messages.
  std::string Ids() const;

 private:
  void Add(config::ConfigReader& config, std::string_view secret_key, std::string id,
           std::string secret, std::vector<std::string> callers = {});

  std::vector<Key> keys_;
};

// Whether `pattern` is 1-`max_chars` characters of [A-Za-z0-9._@-] and `*`: an identity pattern
// (GlobMatches) of a caller, user or role.
bool IsIdentityPattern(std::string_view pattern, size_t max_chars);

}  // namespace ferry::plugins
