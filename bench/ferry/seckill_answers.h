#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ferry::bench {

// The answers a purchase is tallied under, indexed by PurchaseAnswer - 1 (ACCEPTED = 1 ...
// RATE_LIMITED = 7). RATE_LIMITED never comes in a response: the ratelimit filter answers with
// status RESOURCE_EXHAUSTED, which is counted here too.
inline constexpr std::array<std::string_view, 7> kAnswerNames = {
    "ACCEPTED", "SOLD_OUT", "ALREADY_JOINED", "NOT_STARTED", "ENDED", "NOT_FOUND", "RATE_LIMITED"};
inline constexpr size_t kAccepted = 0;
inline constexpr size_t kNotStarted = 3;
inline constexpr size_t kNotFound = 5;
inline constexpr size_t kRateLimited = 6;

// What became of each planned purchase: 0 not answered (never sent, or still out), 1..7 the
// answer (kAnswerNames index + 1), kOutcomeError a failed call.
inline constexpr uint8_t kOutcomeNone = 0;
inline constexpr uint8_t kOutcomeError = 255;

}  // namespace ferry::bench
