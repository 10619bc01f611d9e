// The auth-token parser (plugins/src/auth_token.cc), which reads a request's token before any
// MAC is computed. Every input: the parse ends in time linear in its size (libFuzzer's
// timeout), the fields it finds are pieces of the token and within their documented alphabets
// and sizes, and a v4 token made of those fields parses back to them and verifies.
#include <cstdint>
#include <string>
#include <string_view>

#include "auth_token_fields.h"
#include "fuzz_check.h"
#include "hmac_sha256_key.h"

namespace {

namespace plugins = ferry::plugins;

bool Within(std::string_view whole, std::string_view part) {
  return part.empty() ||
         (part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view token(reinterpret_cast<const char*>(data), size);
  const plugins::AuthRequest request{
      .service = "ferry.demo.EchoService", .method = "Echo", .body = "\x0a\x02hi"};
  plugins::AuthTokenFields fields;
  if (!plugins::ParseAuthToken(token, request, &fields).ok()) return 0;
  for (const std::string_view part : {fields.key_id, fields.time, fields.nonce, fields.caller,
                                      fields.timeout, fields.signature}) {
    FERRY_FUZZ_CHECK(Within(token, part), "a field outside the token: '%.*s'",
                     static_cast<int>(part.size()), part.data());
  }
  FERRY_FUZZ_CHECK(fields.version == 3 || fields.version == 4, "version %d", fields.version);
  FERRY_FUZZ_CHECK(plugins::IsAuthTokenWord(fields.key_id, 1, plugins::kMaxKeyIdChars),
                   "key id '%.*s'", static_cast<int>(fields.key_id.size()), fields.key_id.data());
  FERRY_FUZZ_CHECK(plugins::IsAuthTokenWord(fields.caller, 0, plugins::kMaxCallerChars),
                   "caller '%.*s'", static_cast<int>(fields.caller.size()), fields.caller.data());

  static const plugins::HmacSha256Key key("fuzz-secret");
  plugins::AuthRequest signed_request = request;
  signed_request.framing.timeout_us = fields.timeout_us;
  const std::string again = plugins::MakeAuthToken(key, fields.key_id, signed_request,
                                                   fields.caller, fields.unix_ms, fields.nonce);
  plugins::AuthTokenFields reparsed;
  const ferry::Status parsed = plugins::ParseAuthToken(again, signed_request, &reparsed);
  FERRY_FUZZ_CHECK(parsed.ok(), "the token its own fields make does not parse: %s (%s)",
                   again.c_str(), parsed.ToString().c_str());
  FERRY_FUZZ_CHECK(reparsed.version == 4 && reparsed.key_id == fields.key_id &&
                       reparsed.unix_ms == fields.unix_ms && reparsed.nonce == fields.nonce &&
                       reparsed.caller == fields.caller && reparsed.timeout_us == fields.timeout_us,
                   "fields changed on the way: %s", again.c_str());
  const ferry::Status verified = plugins::CheckAuthTokenSignature(
      plugins::AuthTokenMac(key, reparsed, signed_request), reparsed, signed_request);
  FERRY_FUZZ_CHECK(verified.ok(), "a token just made does not verify: %s (%s)", again.c_str(),
                   verified.ToString().c_str());
  return 0;
}
