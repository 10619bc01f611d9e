#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cluster/retry_budget.h"
#include "ferry/codec/status.h"
#include "ferry/framework/cluster_options.h"
#include "ferry/framework/method_spec.h"

namespace ferry::cluster {

enum class FaultToleranceMode : uint8_t { kFailfast, kFailover, kBackup };

// FaultToleranceOptions checked and resolved for the call path.
struct FaultTolerancePolicy {
  FaultToleranceMode mode = FaultToleranceMode::kFailfast;
  uint32_t max_attempts = 1;
  std::chrono::milliseconds backup_delay{0};
  // Shared by every method that uses this policy.
  RetryBudget* budget = nullptr;

  // Whether a call of a method may ever need a second attempt (and so its request kept).
  bool MayRetry() const { return mode != FaultToleranceMode::kFailfast && max_attempts > 1; }
  bool Hedges(bool idempotent) const {
    return mode == FaultToleranceMode::kBackup && idempotent && max_attempts > 1;
  }
};

// The policy of every method of one service: `fault_tolerance`, unless the method has an entry
// under `methods.<Method>.fault_tolerance`. A mode left empty resolves per call: failover for
// idempotent ones, failfast for the rest. Each entry has its own retry budget.
class MethodPolicies {
 public:
  // INVALID_ARGUMENT naming the offending key and value.
  static Status Create(const ClusterOptions& options, std::unique_ptr<MethodPolicies>* out);

  // `idempotent`: of the call (MethodSpec::IsIdempotent), which an idempotency key decides per
  // call. Inline for the usual service without per-method policies.
  const FaultTolerancePolicy& For(const MethodSpec& method, bool idempotent) const {
    if (!methods_.empty()) return ForOverridden(method, idempotent);
    return idempotent ? service_idempotent_ : service_;
  }

 private:
  MethodPolicies() = default;
  const FaultTolerancePolicy& ForOverridden(const MethodSpec& method, bool idempotent) const;

  std::vector<std::unique_ptr<RetryBudget>> budgets_;
  FaultTolerancePolicy service_;
  FaultTolerancePolicy service_idempotent_;  // differs from service_ only when its mode is empty
  struct Override {
    std::string method;
    FaultTolerancePolicy policy;
    FaultTolerancePolicy idempotent;
  };
  // Few entries if any: a linear scan beats hashing the name.
  std::vector<Override> methods_;
};

}  // namespace ferry::cluster
