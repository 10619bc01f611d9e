#pragma once

#include <array>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "ferry/framework/hash_key.h"
#include "ferry/framework/method_spec.h"
#include "method_key.h"

namespace ferry::plugins {

// HMAC-SHA256 through OpenSSL 3 costs microseconds a call, as much as a whole small RPC, so
// both auth filters remember recent work per thread: the client reuses the token it made for
// a method for up to a second (its date stays well inside the server's skew), and the server
// skips re-verifying a byte-identical token for the same method until the token's skew window
// closes. Neither widens what a captured token can do: it was already valid for that window.
//
// Entries are tagged with the owning filter's instance id (never reused, unlike an address),
// so filters with different secrets never share one.
inline uint64_t NextAuthFilterId() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

// The <unix_ms> of "v2:<unix_ms>:<signature>" (or "v1:..."), or -1.
inline int64_t AuthTokenMillis(std::string_view token) {
  if (!token.starts_with("v2:") && !token.starts_with("v1:")) return -1;
  token.remove_prefix(3);
  int64_t ms = -1;
  const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), ms);
  return error == std::errc() && end != token.data() + token.size() && *end == ':' ? ms : -1;
}

// A small direct-mapped cache, one per thread, of tokens already checked or made.
class AuthTokenCache {
 public:
  using SteadyTime = std::chrono::steady_clock::time_point;

  struct Entry {
    uint64_t filter_id = 0;
    // The client's MethodSpec when it is a generated one (MethodSpec::generated), which its
    // address alone identifies; else null, and method_key does.
    const MethodSpec* spec = nullptr;
    std::string method_key;  // service "/" method
    uint64_t method_id = 0;  // the server's ServerContext::method_id(), when it has one
    std::string token;
    // ServerContext::auth_token_id() of the token, when the server knew it by identity; 0 if not.
    uint64_t token_id = 0;
    // Usable while now <= this. Steady, so that a hit needs no clock read of its own: the time
    // comes with the call (ClientCall::started, ServerContext::received_at()).
    SteadyTime valid_until{};
  };

  // The entry for (filter, method) on the client side, whatever its token. The MethodSpec's
  // address picks the slot without hashing names; Holds() then compares the address for a
  // generated spec and the names for one built at run time.
  Entry& ForMethod(uint64_t filter_id, const void* method_spec) {
    return entries_[Slot(filter_id, reinterpret_cast<uintptr_t>(method_spec))];
  }
  // The entry a server would have used for `token`. The slot comes from the token's last 16
  // bytes, which are signature: as random as a hash of the whole token, and cheaper.
  Entry& ForToken(uint64_t filter_id, std::string_view token) {
    if (token.size() < 2 * sizeof(uint64_t)) {
      return entries_[Slot(filter_id, std::hash<std::string_view>()(token))];
    }
    const char* end = token.data() + token.size();
    return entries_[Slot(filter_id, LoadWord<uint64_t>(end - 2 * sizeof(uint64_t)) ^
                                        LoadWord<uint64_t>(end - sizeof(uint64_t)))];
  }

  // The entry a server would have used for the token known as `token_id` (non-zero).
  Entry& ForTokenId(uint64_t filter_id, uint64_t token_id) {
    // Ids are handed out in sequence, so they spread over the slots without hashing.
    return entries_[(token_id + filter_id * 97) % kSlots];
  }

  static bool Holds(const Entry& e, uint64_t filter_id, std::string_view service,
                    std::string_view method, SteadyTime now) {
    return e.filter_id == filter_id && now <= e.valid_until &&
           IsMethodKey(e.method_key, service, method);
  }
  // The same for the client's `spec`, compared by address when it is a generated one.
  static bool Holds(const Entry& e, uint64_t filter_id, const MethodSpec& spec, SteadyTime now) {
    if (e.filter_id != filter_id || now > e.valid_until) return false;
    return spec.generated ? e.spec == &spec : IsMethodKey(e.method_key, spec.service, spec.method);
  }
  // The same for the server's method `method_id` (ServerContext::method_id()), when non-zero.
  static bool Holds(const Entry& e, uint64_t filter_id, uint64_t method_id,
                    std::string_view service, std::string_view method, SteadyTime now) {
    if (method_id == 0) return Holds(e, filter_id, service, method, now);
    return e.filter_id == filter_id && now <= e.valid_until && e.method_id == method_id;
  }
  // Whether `token` is the entry's, in time independent of where they differ: a caller timing
  // its rejections must learn nothing of a valid token. Inline, as the calls of CRYPTO_memcmp
  // and memcmp cost more than the comparison itself.
  static bool HoldsToken(const Entry& e, std::string_view token) {
    if (e.token.size() != token.size()) return false;
    const char* a = e.token.data();
    const char* b = token.data();
    const size_t n = token.size();
    uint64_t differ = 0;
    if (n < sizeof(uint64_t)) {
      for (size_t i = 0; i < n; ++i) differ |= static_cast<uint8_t>(a[i] ^ b[i]);
      return differ == 0;
    }
    for (size_t i = 0; i + sizeof(uint64_t) < n; i += sizeof(uint64_t)) {
      differ |= LoadWord<uint64_t>(a + i) ^ LoadWord<uint64_t>(b + i);
    }
    const size_t last = n - sizeof(uint64_t);
    differ |= LoadWord<uint64_t>(a + last) ^ LoadWord<uint64_t>(b + last);
    return differ == 0;
  }
  static void Fill(Entry& e, uint64_t filter_id, std::string_view service, std::string_view method,
                   uint64_t method_id, std::string_view token, uint64_t token_id,
                   SteadyTime valid_until, const MethodSpec* generated_spec = nullptr) {
    e.filter_id = filter_id;
    e.spec = generated_spec;
    e.method_key.assign(service).append("/").append(method);
    e.method_id = method_id;
    e.token.assign(token);
    e.token_id = token_id;
    e.valid_until = valid_until;
  }

 private:
  static constexpr size_t kSlots = 256;
  static size_t Slot(uint64_t filter_id, uint64_t hash) {
    return static_cast<size_t>(Mix64(hash ^ filter_id) % kSlots);
  }
  std::array<Entry, kSlots> entries_;
};

}  // namespace ferry::plugins
