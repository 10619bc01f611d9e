#include "ferry/plugins/auth_token.h"

#include <openssl/crypto.h>

#include <array>
#include <charconv>
#include <cstring>
#include <random>
#include <string>

#include "auth_token_fields.h"
#include "base64url.h"

namespace ferry::plugins {
namespace {

constexpr std::string_view kV3Prefix = "v3:";
constexpr std::string_view kV4Prefix = "v4:";
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

// Digits only, no sign: a token's numbers as they were signed.
template <class Int>
bool ParseDecimal(std::string_view text, Int* out) {
  if (text.empty() || text[0] == '-' || text[0] == '+') return false;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return error == std::errc() && end == text.data() + text.size();
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
  const bool v4 = rest.starts_with(kV4Prefix);
  out->version = v4 ? 4 : 3;
  const bool parsed =
      (v4 || rest.starts_with(kV3Prefix)) && (rest.remove_prefix(kV4Prefix.size()), true) &&
      NextField(&rest, &out->key_id, false) && NextField(&rest, &out->time, false) &&
      NextField(&rest, &out->nonce, false) && NextField(&rest, &out->caller, false) &&
      (!v4 || NextField(&rest, &out->timeout, false)) && NextField(&rest, &out->signature, true);
  out->timeout_us = 0;
  if (!parsed || !ParseDecimal(out->time, &out->unix_ms) ||
      (v4 && !ParseDecimal(out->timeout, &out->timeout_us)) ||
      !IsAuthTokenWord(out->key_id, 1, kMaxKeyIdChars) ||
      !IsAuthTokenWord(out->caller, 0, kMaxCallerChars) || out->nonce.size() < kMinNonceChars ||
      out->nonce.size() > kMaxNonceChars || !IsBase64Url(out->nonce) ||
      out->signature.size() != kSignatureChars || !IsBase64Url(out->signature)) {
    return AuthRefusal(request,
                       "malformed token (expected v4:<key id>:<unix ms>:<nonce>:<caller>:<timeout "
                       "us>:<22 base64url digits of hmac-sha256>)");
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

Status CheckAuthTokenBudget(const AuthTokenFields& token, const AuthRequest& request) {
  if (token.version < 4 || token.timeout_us == 0) return Status::Ok();
  const uint64_t sent = request.framing.timeout_us;
  if (sent == 0 || sent > token.timeout_us) {
    return AuthRefusal(request,
                       "timeout beyond the token's budget (the request allows " +
                           (sent == 0 ? std::string("no deadline") : std::to_string(sent) + " us") +
                           ", the token signed " + std::to_string(token.timeout_us) + " us)");
  }
  return Status::Ok();
}

std::optional<Sha256Digest> AuthTokenMac(const HmacSha256Key& key, const AuthTokenFields& token,
                                         const AuthRequest& request) {
  // Everything but the body in one buffer this thread reuses, so that the MAC takes two
  // updates rather than one per field.
  thread_local std::string text;
  text.clear();
  const bool v4 = token.version >= 4;
  for (std::string_view part :
       {v4 ? std::string_view("v4\n") : std::string_view("v3\n"), token.key_id,
        std::string_view("\n"), token.time, std::string_view("\n"), token.nonce,
        std::string_view("\n"), token.caller, std::string_view("\n")}) {
    text.append(part);
  }
  std::array<char, 24> number;
  if (v4) text.append(token.timeout).push_back('\n');
  text.append(request.service).push_back('\n');
  text.append(request.method).push_back('\n');
  if (v4) {
    const RequestFraming& framing = request.framing;
    text.append(DecimalOf(framing.serializer, &number)).push_back('\n');
    text.append(DecimalOf(framing.compression, &number)).push_back('\n');
    text.push_back(framing.one_way ? '1' : '0');
    text.push_back('\n');
    text.append(DecimalOf(framing.max_response_bytes, &number)).push_back('\n');
  }
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
                       "caller, attachments, serializer, compression, one-way flag or response "
                       "limit)");
  }
  return Status::Ok();
}

std::string MakeAuthToken(const HmacSha256Key& key, std::string_view key_id,
                          const AuthRequest& request, std::string_view caller, int64_t unix_ms,
                          std::string_view nonce) {
  std::array<char, 24> time_buffer;
  std::array<char, 24> timeout_buffer;
  AuthTokenFields fields;
  fields.version = 4;
  fields.key_id = key_id;
  const char* time_end =
      std::to_chars(time_buffer.data(), time_buffer.data() + time_buffer.size(), unix_ms).ptr;
  fields.time = std::string_view(time_buffer.data(), time_end - time_buffer.data());
  fields.unix_ms = unix_ms;
  fields.nonce = nonce;
  fields.caller = caller;
  fields.timeout = DecimalOf(request.framing.timeout_us, &timeout_buffer);
  fields.timeout_us = request.framing.timeout_us;
  const std::optional<Sha256Digest> mac = AuthTokenMac(key, fields, request);
  std::string token;
  token.reserve(kV4Prefix.size() + key_id.size() + fields.time.size() + nonce.size() +
                caller.size() + fields.timeout.size() + 5 + kSignatureChars);
  token.append(kV4Prefix).append(key_id).append(":").append(fields.time).append(":");
  token.append(nonce).append(":").append(caller).append(":").append(fields.timeout).append(":");
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
  if (fields.version != 4) return AuthRefusal(request, "v3 token refused (expected v4)");
  if (Status timely = CheckAuthTokenTime(fields, request, now_unix_ms, max_skew); !timely.ok()) {
    return timely;
  }
  if (Status within = CheckAuthTokenBudget(fields, request); !within.ok()) return within;
  if (fields.key_id != key_id) {
    return AuthRefusal(request, "unknown key id '" + std::string(fields.key_id) + "'");
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
