#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ferry/codec/status.h"

namespace ferry {

// Live load of one provider, updated by the channel around every call and read by balancers
// without locks; kept only for a balancer whose ReadsLoad() is true.
struct EndpointLoad {
  std::atomic<int32_t> in_flight{0};
  // Exponentially weighted moving average of call latency, in nanoseconds; 0 = no sample yet.
  std::atomic<int64_t> ewma_latency_ns{0};
};

// A provider as a balancer sees it. `load` is shared with the channel and outlives updates.
struct BalancerEndpoint {
  std::string address;
  uint32_t weight = 100;
  int64_t start_time_ms = 0;  // Unix epoch ms; a young provider's weight ramps up (warm-up)
  std::shared_ptr<EndpointLoad> load = std::make_shared<EndpointLoad>();
};

// YAML `loadbalance:` of a service (docs/loadbalance.md).
struct LoadBalancerOptions {
  std::string name = "round_robin";     // round_robin | random | least_active |
                                        // consistent_hash | latency_aware
  std::chrono::milliseconds warmup{0};  // warmup_ms: weight ramps up over this period
  uint32_t virtual_nodes = 160;         // consistent_hash.virtual_nodes
  std::string hash_field;               // consistent_hash.field: request field name
};

struct SelectRequest {
  // Consistent hashing key: CallOptions::hash_key, or a hash of the configured request field.
  std::optional<uint64_t> hash_key;
  // Addresses this call already tried (failover, backup requests): never chosen again.
  std::span<const std::string> excluded;
};

// Picks a provider for each call. Implementations live in loadbalance/ and register by name
// (kind "loadbalancer"); one instance serves one service. Select() is called concurrently from
// many threads and concurrently with Update().
class LoadBalancer {
 public:
  static constexpr std::string_view kExtensionKind = "loadbalancer";

  virtual ~LoadBalancer() = default;
  virtual Status Configure(const LoadBalancerOptions& options) = 0;
  // Replaces the candidate set. The channel passes only providers that are not ejected.
  virtual void Update(std::vector<BalancerEndpoint> endpoints) = 0;
  // The chosen endpoint, nullptr when there is no eligible candidate; it shares `load`. Returned
  // by pointer so that a pick copies nothing: it must stay valid until the calling thread's
  // next Select() of any balancer, even across Update() or the balancer's destruction (the
  // built-ins keep each thread's last snapshot alive; see loadbalance/src/snapshot_cell.h).
  virtual const BalancerEndpoint* Select(const SelectRequest& request) = 0;
  // Whether Select() reads the endpoints' EndpointLoad. The channel keeps the in-flight counts
  // and times calls only for a balancer that does: atomic counters shared with IO threads and a
  // precise clock read at every completion are not free.
  virtual bool ReadsLoad() const { return false; }
};

// Weight after warm-up: ramps linearly from ~weight/10 at start to `weight` at `warmup`.
// Shared by every balancer so that they agree on what a young provider is worth.
uint32_t EffectiveWeight(const BalancerEndpoint& endpoint, std::chrono::milliseconds warmup,
                         int64_t now_ms);

}  // namespace ferry
