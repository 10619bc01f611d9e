#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ferry::bench {

// The purchases of one sale, in the order they are sent.
enum class AttemptKind : uint8_t {
  kFirst,        // the buyer's purchase
  kSameRequest,  // the same request again (a client retry): must get the same answer
  kNewRequest,   // another purchase under a new request id: must not make a second order
};

struct Attempt {
  uint32_t buyer;
  AttemptKind kind;
};

// Every buyer once, and floor(buyers * ratio) of them, spread evenly, a second time: alternately
// the same request again and a new request (`*same` and `*again` of them). Shuffled, so that a
// second purchase may come before, after or while the first is in flight.
std::vector<Attempt> MakePlan(uint32_t buyers, double ratio, uint64_t seed, uint32_t* same,
                              uint32_t* again);

// Ids are unique per activity, so runs against the same provider never collide (the provider
// remembers answers by request id alone).
std::string UserId(int64_t activity_id, uint32_t buyer);
std::string RequestId(int64_t activity_id, uint32_t buyer, bool second_request);

}  // namespace ferry::bench
