#include "legacy_auth_token.h"

#include <openssl/crypto.h>

#include <array>
#include <charconv>
#include <optional>
#include <string>

#include "base64url.h"
#include "hmac_sha256.h"

namespace ferry::plugins {
namespace {

constexpr std::string_view kV1Prefix = "v1:";
constexpr std::string_view kV2Prefix = "v2:";
// A v2 signature is the first 128 bits of the HMAC (RFC 2104 allows truncating to half the
// hash) in unpadded base64url, so that a token is 39 bytes rather than v1's 81.
constexpr size_t kV2SignatureBytes = 16;
constexpr size_t kV2SignatureChars = 22;
constexpr size_t kV1SignatureChars = 64;

// Longest signature text of either version: expected signatures are built into it, so that
// verifying a good token allocates nothing.
using SignatureText = std::array<char, kV1SignatureChars>;

std::string_view HexOf(const Sha256Digest& digest, SignatureText* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (size_t i = 0; i < digest.size(); ++i) {
    (*out)[2 * i] = kHex[digest[i] >> 4];
    (*out)[2 * i + 1] = kHex[digest[i] & 0xf];
  }
  return {out->data(), 2 * digest.size()};
}

// The signature text of a token of `version` ("v1:" or "v2:"); empty when OpenSSL fails.
std::string_view Sign(std::string_view version, std::string_view secret, std::string_view service,
                      std::string_view method, std::string_view unix_ms, SignatureText* out) {
  // v2 signs its version too, so that no token of one version can be turned into the other's.
  const std::optional<Sha256Digest> digest =
      version == kV1Prefix ? HmacSha256(secret, {service, "\n", method, "\n", unix_ms})
                           : HmacSha256(secret, {"v2\n", service, "\n", method, "\n", unix_ms});
  if (!digest) return {};
  if (version == kV1Prefix) return HexOf(*digest, out);
  Base64UrlEncode(digest->data(), kV2SignatureBytes, out->data());
  return {out->data(), kV2SignatureChars};
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

std::string MakeV2AuthToken(std::string_view secret, std::string_view service,
                            std::string_view method, int64_t unix_ms) {
  std::array<char, 24> time_buffer;
  const char* time_end =
      std::to_chars(time_buffer.data(), time_buffer.data() + time_buffer.size(), unix_ms).ptr;
  const std::string_view time(time_buffer.data(), time_end - time_buffer.data());
  SignatureText signature;
  // A failing OpenSSL yields a token without a signature, which no server accepts.
  const std::string_view signed_text = Sign(kV2Prefix, secret, service, method, time, &signature);
  std::string token;
  token.reserve(kV2Prefix.size() + time.size() + 1 + kV2SignatureChars);
  token.append(kV2Prefix).append(time).push_back(':');
  token.append(signed_text);
  return token;
}

Status VerifyLegacyAuthToken(std::string_view secret, std::string_view token,
                             std::string_view service, std::string_view method, int64_t now_unix_ms,
                             std::chrono::milliseconds max_skew) {
  if (token.empty()) return Unauthenticated(service, method, "missing token");
  const std::string_view version = token.substr(0, kV2Prefix.size());
  const size_t signature_chars = version == kV2Prefix   ? kV2SignatureChars
                                 : version == kV1Prefix ? kV1SignatureChars
                                                        : 0;
  const size_t colon = token.find(':', kV2Prefix.size());
  int64_t unix_ms = 0;
  if (signature_chars == 0 || colon == std::string_view::npos ||
      !ParsesWhole(token.substr(version.size(), colon - version.size()), &unix_ms) ||
      token.size() - colon - 1 != signature_chars) {
    return Unauthenticated(service, method,
                           "malformed v1/v2 token (expected v2:<unix_ms>:<22 base64url digits of "
                           "hmac-sha256>, or v1:<unix_ms>:<64 hex digits>)");
  }
  if (unix_ms < now_unix_ms - max_skew.count() || unix_ms > now_unix_ms + max_skew.count()) {
    return Unauthenticated(service, method,
                           "expired token (issued at unix ms " + std::to_string(unix_ms) +
                               ", server time " + std::to_string(now_unix_ms) + ", max skew " +
                               std::to_string(max_skew.count()) + " ms)");
  }
  const std::string_view time = token.substr(version.size(), colon - version.size());
  SignatureText expected;
  const std::string_view signature = Sign(version, secret, service, method, time, &expected);
  if (signature.size() != signature_chars) {
    return Status(StatusCode::INTERNAL, "auth: OpenSSL cannot compute HMAC-SHA256");
  }
  // Constant time, so that response timing reveals nothing about the expected signature.
  if (CRYPTO_memcmp(signature.data(), token.data() + colon + 1, signature_chars) != 0) {
    return Unauthenticated(service, method,
                           "invalid token signature (wrong secret, or made for another method)");
  }
  return Status::Ok();
}

bool IsLegacyAuthToken(std::string_view token) {
  return token.starts_with(kV2Prefix) || token.starts_with(kV1Prefix);
}

}  // namespace ferry::plugins
