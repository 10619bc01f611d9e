// The user-token parser (plugins/src/user_token.cc), which reads whatever a client puts in
// Authorization before any MAC is computed. Every input: the parse ends in time linear in its
// size (libFuzzer's timeout), the fields it finds are pieces of the token, and the token those
// fields make parses back to the same fields.
#include <cstdint>
#include <string_view>

#include "fuzz_check.h"
#include "hmac_sha256_key.h"
#include "user_token_codec.h"

namespace {

using ferry::plugins::UserTokenFields;

bool Within(std::string_view whole, std::string_view part) {
  return part.empty() ||
         (part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size());
}

bool SameClaims(const UserTokenFields& a, const UserTokenFields& b) {
  return a.version == b.version && a.key_id == b.key_id && a.user == b.user &&
         a.audience == b.audience && a.token_id == b.token_id && a.roles == b.roles &&
         a.issued_unix_s == b.issued_unix_s && a.expires_unix_s == b.expires_unix_s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view token(reinterpret_cast<const char*>(data), size);
  UserTokenFields fields;
  if (!ferry::plugins::ParseUserToken(token, &fields)) return 0;
  for (const std::string_view part : {fields.key_id, fields.user, fields.audience, fields.token_id,
                                      fields.roles, fields.issued, fields.expires, fields.mac}) {
    FERRY_FUZZ_CHECK(Within(token, part), "a field outside the token: '%.*s'",
                     static_cast<int>(part.size()), part.data());
  }
  FERRY_FUZZ_CHECK(fields.version >= 1 && fields.version <= 3, "version %d", fields.version);
  FERRY_FUZZ_CHECK(!fields.key_id.empty() && !fields.user.empty(), "empty key id or user");

  static const ferry::plugins::HmacSha256Key key("fuzz-secret");
  const std::string again = ferry::plugins::EncodeUserToken(key, fields);
  UserTokenFields reparsed;
  FERRY_FUZZ_CHECK(ferry::plugins::ParseUserToken(again, &reparsed),
                   "the token its own fields make does not parse: %s", again.c_str());
  FERRY_FUZZ_CHECK(SameClaims(fields, reparsed), "claims changed on the way: %s", again.c_str());
  const auto mac = ferry::plugins::UserTokenMac(key, reparsed);
  FERRY_FUZZ_CHECK(mac && ferry::plugins::UserTokenMacMatches(*mac, reparsed),
                   "a token just made does not verify: %s", again.c_str());
  return 0;
}
