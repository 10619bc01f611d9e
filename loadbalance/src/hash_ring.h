#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "candidates.h"
#include "endpoint_set.h"

namespace ferry::loadbalance {

// A ketama-style consistent-hash ring: each endpoint owns `virtual_nodes * weight / 100` points
// on a 64-bit circle, and a key belongs to the first point clockwise from it. Adding or removing
// one endpoint of N moves only ~1/N of the keys, all to or from that endpoint. Point positions
// depend only on addresses and weights, never on endpoint order, so every client builds the
// same ring.
class HashRing {
 public:
  HashRing(std::vector<BalancerEndpoint> endpoints, const LoadBalancerOptions& options);

  const EndpointSet& set() const { return set_; }

  // The endpoint that owns `key` among `candidates`: excluded endpoints are passed over as if
  // they had left the ring. A warming endpoint keeps only its effective share of its keys, a
  // fixed subset that grows as warm-up progresses, and passes the rest clockwise (a bounded
  // number of times: see kMaxWarmupPasses).
  std::optional<size_t> Owner(uint64_t key, const Candidates& candidates) const;

 private:
  struct Point {
    uint64_t position;
    uint32_t endpoint;
  };

  EndpointSet set_;
  std::vector<uint64_t> seeds_;  // per endpoint: HashKey(address)
  std::vector<Point> points_;    // sorted by position
};

}  // namespace ferry::loadbalance
