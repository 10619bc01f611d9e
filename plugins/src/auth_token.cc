#include "ferry/plugins/auth_token.h"

#include <openssl/crypto.h>

#include <array>
#include <charconv>
#include <cstring>
#include <random>
#include <string>

#include "auth_token_v3.h"
#include "base64url.h"

namespace ferry::plugins {
namespace {

constexpr std::string_view kV3Prefix = "v3:";
// The first 128 bits of the HMAC (RFC 2104 allows truncating to half the hash).
constexpr size_t kSignatureBytes = 16;
constexpr size_t kSignatureChars = 22;
constexpr size_t kNonceBytes = 12;
constexpr size_t kMinNonceChars = 16;
constexpr size_t kMaxNonceChars = 64;

// ASCII letters and digits whatever the locale, inline: every token's fields are checked
// with it, and std::isalnum is a call through the PLT per character.
constexpr bool IsAsciiAlnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool IsBase64Url(std::string_view text) {
  for (char c : text) {
    if (!(IsAsciiAlnum(c) || c == '-' || c == '_')) return false;
  }
  return true;
}

std::string_view DecimalOf(uint64_t value, std::array<char, 24>* buffer) {
  const char* end = std::to_chars(buffer->data(), buffer->data() + buffer->size(), value).ptr;
  return {buffer->data(), static_cast<size_t>(end - buffer->data())};
}

// Next field of a token up to its ':', or the rest; false when there is none.
bool NextField(std::string_view* rest, std::string_view* field, bool last) {
  const size_t colon = rest->find(':');
  if (last) {
    if (colon != std::string_view::npos) return false;
    *field = *rest;
    return true;
  }
  if (colon == std::string_view::npos) return false;
  *field = rest->substr(0, colon);
  rest->remove_prefix(colon + 1);
  return true;
}

}  // namespace

bool IsAuthTokenWord(std::string_view word, size_t min_chars, size_t max_chars) {
  if (word.size() < min_chars || word.size() > max_chars) return false;
  for (char c : word) {
    if (!(IsAsciiAlnum(c) || c == '.' || c == '_' || c == '@' || c == '-')) {
      return false;
    }
  }
  return true;
}

Status AuthRefusal(const AuthRequest& request, std::string_view why) {
  return Status(StatusCode::UNAUTHENTICATED, "auth: " + std::string(why) + " for " +
                                                 std::string(request.service) + "/" +
                                                 std::string(request.method));
}

Status ParseAuthToken(std::string_view token, const AuthRequest& request, AuthTokenFields* out) {
  if (token.empty()) return AuthRefusal(request, "missing token");
  std::string_view rest = token;
  const bool parsed = rest.starts_with(kV3Prefix) && (rest.remove_prefix(kV3Prefix.size()), true) &&
                      NextField(&rest, &out->key_id, false) &&
                      NextField(&rest, &out->time, false) && NextField(&rest, &out->nonce, false) &&
                      NextField(&rest, &out->caller, false) &&
                      NextField(&rest, &out->signature, true);
  const auto [end, error] =
      std::from_chars(out->time.data(), out->time.data() + out->time.size(), out->unix_ms);
  if (!parsed || error != std::errc() || end != out->time.data() + out->time.size() ||
      out->time.empty() || out->time[0] == '-' ||
      !IsAuthTokenWord(out->key_id, 1, kMaxKeyIdChars) ||
      !IsAuthTokenWord(out->caller, 0, kMaxCallerChars) || out->nonce.size() < kMinNonceChars ||
      out->nonce.size() > kMaxNonceChars || !IsBase64Url(out->nonce) ||
      out->signature.size() != kSignatureChars || !IsBase64Url(out->signature)) {
    return AuthRefusal(request,
                       "malformed token (expected v3:<key id>:<unix ms>:<nonce>:<caller>:<22 "
                       "base64url digits of hmac-sha256>)");
  }
  return Status::Ok();
}

Status CheckAuthTokenTime(const AuthTokenFields& token, const AuthRequest& request,
                          int64_t now_unix_ms, std::chrono::milliseconds max_skew) {
  const int64_t skew = max_skew.count();
  if (token.unix_ms < now_unix_ms - skew) {
    return AuthRefusal(request, "expired token (issued at unix ms " +
                                    std::to_string(token.unix_ms) + ", server time " +
                                    std::to_string(now_unix_ms) + ": " +
                                    std::to_string(now_unix_ms - token.unix_ms) +
                                    " ms old, max skew " + std::to_string(skew) +
                                    " ms; a replayed token, or the client's clock is behind)");
  }
  if (token.unix_ms > now_unix_ms + skew) {
    return AuthRefusal(request,
                       "token from the future (issued at unix ms " + std::to_string(token.unix_ms) +
                           ", server time " + std::to_string(now_unix_ms) + ": " +
                           std::to_string(token.unix_ms - now_unix_ms) + " ms ahead, max skew " +
                           std::to_string(skew) + " ms; the client's clock is ahead)");
  }
  return Status::Ok();
}

std::optional<Sha256Digest> AuthTokenMac(const HmacSha256Key& key, const AuthTokenFields& token,
                                         const AuthRequest& request) {
  // Everything but the body in one buffer this thread reuses, so that the MAC takes two
  // updates rather than one per field.
  thread_local std::string text;
  text.clear();
  for (std::string_view part :
       {std::string_view("v3\n"), token.key_id, std::string_view("\n"), token.time,
        std::string_view("\n"), token.nonce, std::string_view("\n"), token.caller,
        std::string_view("\n"), request.service, std::string_view("\n"), request.method,
        std::string_view("\n")}) {
    text.append(part);
  }
  std::array<char, 24> number;
  const size_t attachments = request.attachments != nullptr ? request.attachments->size() : 0;
  text.append(DecimalOf(attachments, &number)).push_back('\n');
  if (attachments != 0) {
    for (const auto& [name, value] : *request.attachments) {
      text.append(DecimalOf(name.size(), &number)).append(":").append(name);
      text.append(DecimalOf(value.size(), &number)).append(":").append(value);
    }
  }
  text.push_back('\n');
  return key.Mac({text, request.body});
}

Status CheckAuthTokenSignature(const std::optional<Sha256Digest>& mac, const AuthTokenFields& token,
                               const AuthRequest& request) {
  if (!mac) return Status(StatusCode::INTERNAL, "auth: OpenSSL cannot compute HMAC-SHA256");
  std::array<char, kSignatureChars> expected;
  Base64UrlEncode(mac->data(), kSignatureBytes, expected.data());
  // Constant time, so that response timing reveals nothing about the expected signature.
  if (CRYPTO_memcmp(expected.data(), token.signature.data(), kSignatureChars) != 0) {
    return AuthRefusal(request,
                       "invalid token signature (wrong secret, or made for another method, body, "
                       "caller or attachments)");
  }
  return Status::Ok();
}

std::string MakeAuthToken(const HmacSha256Key& key, std::string_view key_id,
                          const AuthRequest& request, std::string_view caller, int64_t unix_ms,
                          std::string_view nonce) {
  std::array<char, 24> time_buffer;
  const char* time_end =
      std::to_chars(time_buffer.data(), time_buffer.data() + time_buffer.size(), unix_ms).ptr;
  AuthTokenFields fields;
  fields.key_id = key_id;
  fields.time = std::string_view(time_buffer.data(), time_end - time_buffer.data());
  fields.unix_ms = unix_ms;
  fields.nonce = nonce;
  fields.caller = caller;
  const std::optional<Sha256Digest> mac = AuthTokenMac(key, fields, request);
  std::string token;
  token.reserve(kV3Prefix.size() + key_id.size() + fields.time.size() + nonce.size() +
                caller.size() + 4 + kSignatureChars);
  token.append(kV3Prefix).append(key_id).append(":").append(fields.time).append(":");
  token.append(nonce).append(":").append(caller).append(":");
  if (mac) {
    const size_t at = token.size();
    token.resize(at + kSignatureChars);
    Base64UrlEncode(mac->data(), kSignatureBytes, token.data() + at);
  }
  return token;
}

std::string MakeAuthToken(std::string_view key_id, std::string_view secret,
                          const AuthRequest& request, std::string_view caller, int64_t unix_ms,
                          std::string_view nonce) {
  return MakeAuthToken(HmacSha256Key(secret), key_id, request, caller, unix_ms, nonce);
}

std::string NewAuthNonce() {
  // Unique rather than secret: a nonce only has to differ from every other within the skew
  // window, and a token cannot be made without the key whatever its nonce. A per-thread
  // generator seeded from the OS costs no system call per token.
  thread_local std::mt19937_64 random([] {
    std::random_device device;
    std::seed_seq seed{device(), device(), device(), device()};
    return std::mt19937_64(seed);
  }());
  std::array<uint8_t, 16> bytes;
  const uint64_t high = random();
  const uint64_t low = random();
  std::memcpy(bytes.data(), &high, sizeof high);
  std::memcpy(bytes.data() + sizeof high, &low, sizeof low);
  std::string nonce(kMinNonceChars, '\0');
  Base64UrlEncode(bytes.data(), kNonceBytes, nonce.data());
  return nonce;
}

Status VerifyAuthToken(std::string_view key_id, std::string_view secret, std::string_view token,
                       const AuthRequest& request, int64_t now_unix_ms,
                       std::chrono::milliseconds max_skew, std::string* caller) {
  AuthTokenFields fields;
  if (Status parsed = ParseAuthToken(token, request, &fields); !parsed.ok()) return parsed;
  if (Status timely = CheckAuthTokenTime(fields, request, now_unix_ms, max_skew); !timely.ok()) {
    return timely;
  }
  if (fields.key_id != key_id) {
    return AuthRefusal(request, "token signed with key id '" + std::string(fields.key_id) +
                                    "', expected '" + std::string(key_id) + "'");
  }
  const HmacSha256Key key(secret);
  if (Status signed_ok =
          CheckAuthTokenSignature(AuthTokenMac(key, fields, request), fields, request);
      !signed_ok.ok()) {
    return signed_ok;
  }
  if (caller != nullptr) caller->assign(fields.caller);
  return Status::Ok();
}

}  // namespace ferry::plugins
