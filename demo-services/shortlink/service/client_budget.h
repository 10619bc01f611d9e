#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string_view>

namespace ferry::shortlink {

// A per-client allowance of `per_minute` events (a token bucket holding up to that many,
// refilled evenly), for the redirect's 404s: a client walking codes runs out, a person who
// mistyped one does not. Clients are addresses, IPv6 by /64 (one subscriber's whole prefix).
// The table has a fixed number of slots, each a packed atomic word, so memory is the same
// whatever a hostile client sends and no lock is taken; clients hashing to one slot share its
// allowance.
class ClientBudget {
 public:
  explicit ClientBudget(uint32_t per_minute) : per_minute_(per_minute) {}

  // Takes one event from `client`'s allowance; false when there is none left (and takes
  // nothing). Always true when per_minute is 0 (off).
  bool Take(std::string_view client_address, int64_t now_ms);
  // Whether `client` has run out, taking nothing.
  bool Exhausted(std::string_view client_address, int64_t now_ms) const;

 private:
  static constexpr size_t kSlots = 1 << 16;
  struct Bucket {
    uint32_t tokens_milli;  // thousandths of a token
    uint32_t at_s;          // when last refilled, in seconds of now_ms
  };
  static uint64_t ClientKey(std::string_view client_address);
  Bucket Refilled(uint64_t word, int64_t now_ms) const;

  const uint32_t per_minute_;
  std::array<std::atomic<uint64_t>, kSlots> slots_{};
};

}  // namespace ferry::shortlink
