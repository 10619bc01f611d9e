// ferry-auth-token: signs one call for the `auth` server filter, for operators and scripts that
// call a provider's HTTP gateway with curl (docs/plugins.md, `auth`): the token goes in
// `Authorization: Bearer <token>`, and the body sent must be exactly the one signed. Each token
// is good once (the server remembers its nonce) and for max_skew_ms around now.

#include <charconv>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <string>
#include <string_view>

#include "ferry/codec/serializer.h"
#include "ferry/framework/secret_file.h"
#include "ferry/plugins/auth_token.h"

namespace {

constexpr std::string_view kUsage =
    "usage: ferry-auth-token --key-id ID --secret-file FILE --service SERVICE --method METHOD\n"
    "                        [--body BODY] [--caller CALLER] [--timeout-ms MS]\n"
    "Prints an auth token (v4:...) for one call of SERVICE/METHOD through the HTTP gateway with\n"
    "the JSON BODY (default empty), signed with key ID whose secret is FILE's content (one\n"
    "trailing newline ignored). With --timeout-ms, for a call sent with X-Ferry-Timeout-Ms at\n"
    "most MS; without, for one sent without that header.\n";

// A year, beyond which the gateway refuses X-Ferry-Timeout-Ms.
constexpr uint64_t kMaxTimeoutMs = uint64_t{365} * 24 * 3600 * 1000;

int Fail(const std::string& why) {
  std::cerr << "ferry-auth-token: " << why << "\n" << kUsage;
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string key_id, secret_file, service, method, body, caller, timeout_ms;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::cout << kUsage;
      return 0;
    }
    if (i + 1 >= argc) return Fail(std::string(flag) + ": expected a value");
    std::string* target = flag == "--key-id"        ? &key_id
                          : flag == "--secret-file" ? &secret_file
                          : flag == "--service"     ? &service
                          : flag == "--method"      ? &method
                          : flag == "--body"        ? &body
                          : flag == "--caller"      ? &caller
                          : flag == "--timeout-ms"  ? &timeout_ms
                                                    : nullptr;
    if (target == nullptr) return Fail("unknown flag " + std::string(flag));
    *target = argv[++i];
  }
  if (key_id.empty() || secret_file.empty() || service.empty() || method.empty()) {
    return Fail("--key-id, --secret-file, --service and --method are required");
  }
  std::string secret;
  if (!ferry::config::ReadSecretFile(secret_file, &secret)) {
    return Fail("--secret-file: cannot read '" + secret_file + "'");
  }
  if (secret.empty()) return Fail("--secret-file: '" + secret_file + "' is empty");
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  uint64_t timeout_us = 0;
  if (!timeout_ms.empty()) {
    uint64_t ms = 0;
    const auto [end, error] =
        std::from_chars(timeout_ms.data(), timeout_ms.data() + timeout_ms.size(), ms);
    if (error != std::errc() || end != timeout_ms.data() + timeout_ms.size() || ms == 0 ||
        ms > kMaxTimeoutMs) {
      return Fail("--timeout-ms: expected milliseconds from 1, got '" + timeout_ms + "'");
    }
    timeout_us = ms * 1000;
  }
  // As the gateway hands the call to the server's filters: a JSON body, uncompressed, answered.
  const ferry::plugins::AuthRequest request{
      .service = service,
      .method = method,
      .body = body,
      .framing = {.timeout_us = timeout_us, .serializer = ferry::codec::serializer_id::kJson}};
  const std::string token = ferry::plugins::MakeAuthToken(key_id, secret, request, caller, now_ms,
                                                          ferry::plugins::NewAuthNonce());
  if (token.empty()) {
    return Fail(
        "cannot make a token: the key id must be 1-64 and the caller 0-64 characters of "
        "A-Z a-z 0-9 . _ @ -");
  }
  std::cout << token << "\n";
  return 0;
}
