#include "service/client_budget.h"

#include <boost/asio/ip/address.hpp>

#include <algorithm>
#include <functional>
#include <string>

namespace ferry::shortlink {

namespace {

// The low word is the second plus one, so that a used slot is never the unused 0.
uint64_t Pack(uint32_t tokens_milli, uint32_t at_s) {
  return (uint64_t{tokens_milli} << 32) | (at_s + 1);
}

}  // namespace

uint64_t ClientBudget::ClientKey(std::string_view client_address) {
  boost::system::error_code error;
  const auto address = boost::asio::ip::make_address(std::string(client_address), error);
  if (error) return std::hash<std::string_view>()(client_address);
  if (address.is_v6() && !address.to_v6().is_v4_mapped()) {
    auto bytes = address.to_v6().to_bytes();
    std::fill(bytes.begin() + 8, bytes.end(), 0);  // the /64
    return std::hash<std::string_view>()(
        std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  }
  return std::hash<std::string>()(address.to_string());
}

// A slot's bucket as of now: full when never used (0), else refilled for the seconds since.
ClientBudget::Bucket ClientBudget::Refilled(uint64_t word, int64_t now_ms) const {
  const uint32_t now_s = static_cast<uint32_t>(now_ms / 1000);
  const uint32_t full = per_minute_ * 1000;
  if (word == 0) return Bucket{full, now_s};
  Bucket b{static_cast<uint32_t>(word >> 32), static_cast<uint32_t>(word) - 1};
  const uint64_t refill = uint64_t{now_s - std::min(now_s, b.at_s)} * per_minute_ * 1000 / 60;
  b.tokens_milli = static_cast<uint32_t>(std::min<uint64_t>(full, b.tokens_milli + refill));
  b.at_s = std::max(b.at_s, now_s);
  return b;
}

bool ClientBudget::Take(std::string_view client_address, int64_t now_ms) {
  if (per_minute_ == 0) return true;
  std::atomic<uint64_t>& slot = slots_[ClientKey(client_address) % kSlots];
  uint64_t word = slot.load(std::memory_order_relaxed);
  while (true) {
    Bucket b = Refilled(word, now_ms);
    if (b.tokens_milli < 1000) return false;
    b.tokens_milli -= 1000;
    if (slot.compare_exchange_weak(word, Pack(b.tokens_milli, b.at_s), std::memory_order_relaxed)) {
      return true;
    }
  }
}

bool ClientBudget::Exhausted(std::string_view client_address, int64_t now_ms) const {
  if (per_minute_ == 0) return false;
  const uint64_t word = slots_[ClientKey(client_address) % kSlots].load(std::memory_order_relaxed);
  return Refilled(word, now_ms).tokens_milli < 1000;
}

}  // namespace ferry::shortlink
