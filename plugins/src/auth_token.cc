#include "ferry/plugins/auth_token.h"

#include <openssl/crypto.h>

#include <array>
#include <charconv>
#include <optional>
#include <string>

#include "hmac_sha256.h"

namespace ferry::plugins {
namespace {

constexpr std::string_view kVersionPrefix = "v1:";

using SignatureHex = std::array<char, 2 * std::tuple_size_v<Sha256Digest>>;

// Into a buffer rather than a string: verifying a good token allocates nothing.
bool Sign(std::string_view secret, std::string_view service, std::string_view method,
          std::string_view unix_ms, SignatureHex* out) {
  const std::optional<Sha256Digest> digest =
      HmacSha256(secret, {service, "\n", method, "\n", unix_ms});
  if (!digest) return false;
  static constexpr char kHex[] = "0123456789abcdef";
  for (size_t i = 0; i < digest->size(); ++i) {
    (*out)[2 * i] = kHex[(*digest)[i] >> 4];
    (*out)[2 * i + 1] = kHex[(*digest)[i] & 0xf];
  }
  return true;
}

bool ParsesWhole(std::string_view digits, int64_t* out) {
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), *out);
  return error == std::errc() && end == digits.data() + digits.size();
}

Status Unauthenticated(std::string_view service, std::string_view method, const std::string& why) {
  return Status(StatusCode::UNAUTHENTICATED,
                "auth: " + why + " for " + std::string(service) + "/" + std::string(method));
}

}  // namespace

std::string MakeAuthToken(std::string_view secret, std::string_view service,
                          std::string_view method, int64_t unix_ms) {
  std::array<char, 24> time_buffer;
  const char* time_end =
      std::to_chars(time_buffer.data(), time_buffer.data() + time_buffer.size(), unix_ms).ptr;
  const std::string_view time(time_buffer.data(), time_end - time_buffer.data());
  SignatureHex signature;
  // A failing OpenSSL yields a token without a signature, which no server accepts.
  const bool signed_ok = Sign(secret, service, method, time, &signature);
  std::string token;
  token.reserve(kVersionPrefix.size() + time.size() + 1 + signature.size());
  token.append(kVersionPrefix).append(time).push_back(':');
  if (signed_ok) token.append(signature.data(), signature.size());
  return token;
}

Status VerifyAuthToken(std::string_view secret, std::string_view token, std::string_view service,
                       std::string_view method, int64_t now_unix_ms,
                       std::chrono::milliseconds max_skew) {
  if (token.empty()) return Unauthenticated(service, method, "missing token");
  const size_t colon = token.find(':', kVersionPrefix.size());
  int64_t unix_ms = 0;
  SignatureHex expected;
  if (!token.starts_with(kVersionPrefix) || colon == std::string_view::npos ||
      !ParsesWhole(token.substr(kVersionPrefix.size(), colon - kVersionPrefix.size()), &unix_ms) ||
      token.size() - colon - 1 != expected.size()) {
    return Unauthenticated(service, method,
                           "malformed token (expected v1:<unix_ms>:<hex hmac-sha256>)");
  }
  if (unix_ms < now_unix_ms - max_skew.count() || unix_ms > now_unix_ms + max_skew.count()) {
    return Unauthenticated(service, method,
                           "expired token (issued at unix ms " + std::to_string(unix_ms) +
                               ", server time " + std::to_string(now_unix_ms) + ", max skew " +
                               std::to_string(max_skew.count()) + " ms)");
  }
  const std::string_view time = token.substr(kVersionPrefix.size(), colon - kVersionPrefix.size());
  if (!Sign(secret, service, method, time, &expected)) {
    return Status(StatusCode::INTERNAL, "auth: OpenSSL cannot compute HMAC-SHA256");
  }
  // Constant time, so that response timing reveals nothing about the expected signature.
  if (CRYPTO_memcmp(expected.data(), token.data() + colon + 1, expected.size()) != 0) {
    return Unauthenticated(service, method,
                           "invalid token signature (wrong secret, or made for another method)");
  }
  return Status::Ok();
}

}  // namespace ferry::plugins
