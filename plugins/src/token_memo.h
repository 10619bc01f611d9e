#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "ferry/framework/hash_key.h"

namespace ferry::plugins {

// HMAC-SHA256 through OpenSSL 3 costs microseconds a call, as much as a whole small RPC, so
// both auth filters remember recent work per thread: the client reuses the token it made for a
// method for up to a second (its date stays well inside the server's skew), and the server
// skips re-verifying a byte-identical token for the same method until the token's skew window
// closes. Neither widens what a captured token can do: it was already valid for that window.
//
// One small direct-mapped memo per thread; entries belong to an owner, a filter's state for one
// method, whose id is never reused (unlike an address), so owners never see each other's.
class TokenMemo {
 public:
  struct Entry {
    uint64_t owner = 0;
    std::string token;
    int64_t valid_until_ms = 0;  // Unix ms, inclusive
  };

  static uint64_t NextOwnerId() {
    static std::atomic<uint64_t> next{1};
    return next.fetch_add(1, std::memory_order_relaxed);
  }

  static TokenMemo& ThisThread() {
    thread_local TokenMemo memo;
    return memo;
  }

  // The owner's entry for tokens that hash to `hash`.
  Entry& Slot(uint64_t owner, uint64_t hash) {
    return entries_[static_cast<size_t>(Mix64(hash ^ (owner * 0x9E3779B97F4A7C15ULL)) % kSlots)];
  }

  // A hash of a token from its last 16 bytes, which are signature: as random as a hash of the
  // whole token, and cheaper.
  static uint64_t HashOf(std::string_view token) {
    if (token.size() < 2 * sizeof(uint64_t)) return std::hash<std::string_view>()(token);
    const char* end = token.data() + token.size();
    return Word(end - 2 * sizeof(uint64_t)) ^ Word(end - sizeof(uint64_t));
  }

  // Whether `token` is the entry's, in time independent of where they differ: a caller timing
  // its rejections must learn nothing of a valid token. Word by word, the last word
  // overlapping the one before it, since every call of every method compares one.
  static bool SameToken(const Entry& entry, std::string_view token) {
    if (entry.token.size() != token.size()) return false;
    const char* a = entry.token.data();
    const char* b = token.data();
    const size_t n = token.size();
    uint64_t differ = 0;
    if (n < sizeof(uint64_t)) {
      for (size_t i = 0; i < n; ++i) differ |= static_cast<uint8_t>(a[i] ^ b[i]);
      return differ == 0;
    }
    for (size_t i = 0; i + sizeof(uint64_t) < n; i += sizeof(uint64_t)) {
      differ |= Word(a + i) ^ Word(b + i);
    }
    differ |= Word(a + n - sizeof(uint64_t)) ^ Word(b + n - sizeof(uint64_t));
    return differ == 0;
  }

 private:
  static uint64_t Word(const char* p) {
    uint64_t word = 0;
    std::memcpy(&word, p, sizeof word);
    return word;
  }

  static constexpr size_t kSlots = 256;
  std::array<Entry, kSlots> entries_;
};

}  // namespace ferry::plugins
