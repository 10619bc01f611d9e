#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>

#include "ferry/framework/client_options.h"
#include "ferry/framework/load_balancer.h"

namespace ferry {

// YAML `clients.<name>.fault_tolerance` (and per method under `methods.<Method>`).
struct FaultToleranceOptions {
  // failfast: one attempt. failover: on failure try another provider, for idempotent methods
  // or when the attempt certainly did not run (connect failure, OVERLOADED, DRAINING). backup:
  // idempotent methods also get a second attempt on another provider after `backup_delay`
  // without an answer; the first answer wins and the other is cancelled.
  // Empty (the default): failover for methods marked (ferry.idempotent) and for calls whose
  // (ferry.idempotency_key) field is set, failfast for the rest. An idempotent method is safe to
  // run twice, so one provider dying or restarting under it should not fail the caller; a second
  // attempt on another provider costs at most one more request, and the retry budget below caps
  // that cost when a whole cluster is sick.
  std::string mode;           // mode
  uint32_t max_attempts = 2;  // max_attempts (first try included)
  // Retries (failover and backup attempts) may be at most this fraction of calls, plus
  // `retry_budget_min_per_second`, so that a sick cluster is not hit by a retry storm.
  double retry_budget_ratio = 0.1;             // retry_budget.ratio
  uint32_t retry_budget_min_per_second = 10;   // retry_budget.min_per_second
  std::chrono::milliseconds backup_delay{10};  // backup_delay_ms
};

// YAML `clients.<name>.outlier`: consecutive failures eject a provider for base * 2^(n-1), capped;
// it returns after a successful probe.
struct OutlierOptions {
  uint32_t consecutive_failures = 5;              // consecutive_failures; 0 disables
  std::chrono::milliseconds base_ejection{1000};  // base_ejection_ms
  std::chrono::milliseconds max_ejection{30000};  // max_ejection_ms
  double max_ejected_ratio = 0.5;                 // never eject more than this share
};

// A channel to a named service found through a Registry.
struct ClusterOptions {
  std::string service;   // full protobuf name, e.g. "ferry.demo.EchoService"
  ClientOptions client;  // per-connection settings; `target` is not used
  LoadBalancerOptions loadbalance;
  FaultToleranceOptions fault_tolerance;
  std::map<std::string, FaultToleranceOptions> method_fault_tolerance;  // by method name
  OutlierOptions outlier;
};

}  // namespace ferry
