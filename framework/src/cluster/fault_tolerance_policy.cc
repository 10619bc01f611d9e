#include "cluster/fault_tolerance_policy.h"

namespace ferry::cluster {
namespace {

Status Invalid(const std::string& key, const std::string& problem) {
  return Status(StatusCode::INVALID_ARGUMENT, key + ": " + problem);
}

// An empty mode is resolved by whether the method is idempotent.
Status ParseMode(const std::string& text, bool idempotent, const std::string& key,
                 FaultToleranceMode* out) {
  if (text.empty()) {
    *out = idempotent ? FaultToleranceMode::kFailover : FaultToleranceMode::kFailfast;
  } else if (text == "failfast") {
    *out = FaultToleranceMode::kFailfast;
  } else if (text == "failover") {
    *out = FaultToleranceMode::kFailover;
  } else if (text == "backup") {
    *out = FaultToleranceMode::kBackup;
  } else {
    return Invalid(key + ".mode",
                   "unknown mode '" + text + "' (known: failfast, failover, backup)");
  }
  return Status::Ok();
}

Status ResolveOne(const FaultToleranceOptions& options, bool idempotent, const std::string& key,
                  RetryBudget* budget, FaultTolerancePolicy* out) {
  if (Status status = ParseMode(options.mode, idempotent, key, &out->mode); !status.ok()) {
    return status;
  }
  if (options.max_attempts == 0) {
    return Invalid(key + ".max_attempts", "must be at least 1 (the first try counts)");
  }
  // Written so that NaN fails too.
  if (!(options.retry_budget_ratio >= 0.0 && options.retry_budget_ratio <= 1.0)) {
    return Invalid(key + ".retry_budget.ratio",
                   std::to_string(options.retry_budget_ratio) + " is outside [0, 1]");
  }
  if (options.backup_delay.count() < 0) {
    return Invalid(key + ".backup_delay_ms", "must not be negative");
  }
  out->max_attempts = options.max_attempts;
  out->backup_delay = options.backup_delay;
  out->budget = budget;
  return Status::Ok();
}

// The policies of one entry for the methods that are not and that are idempotent; both draw
// on the entry's one retry budget.
Status Resolve(const FaultToleranceOptions& options, const std::string& key,
               std::vector<std::unique_ptr<RetryBudget>>* budgets, FaultTolerancePolicy* plain,
               FaultTolerancePolicy* idempotent) {
  budgets->push_back(std::make_unique<RetryBudget>(options.retry_budget_ratio,
                                                   options.retry_budget_min_per_second));
  RetryBudget* budget = budgets->back().get();
  if (Status status = ResolveOne(options, false, key, budget, plain); !status.ok()) return status;
  return ResolveOne(options, true, key, budget, idempotent);
}

}  // namespace

Status MethodPolicies::Create(const ClusterOptions& options, std::unique_ptr<MethodPolicies>* out) {
  std::unique_ptr<MethodPolicies> policies(new MethodPolicies);
  if (Status status = Resolve(options.fault_tolerance, "fault_tolerance", &policies->budgets_,
                              &policies->service_, &policies->service_idempotent_);
      !status.ok()) {
    return status;
  }
  for (const auto& [method, method_options] : options.method_fault_tolerance) {
    Override entry{.method = method};
    if (Status status = Resolve(method_options, "methods." + method + ".fault_tolerance",
                                &policies->budgets_, &entry.policy, &entry.idempotent);
        !status.ok()) {
      return status;
    }
    policies->methods_.push_back(std::move(entry));
  }
  *out = std::move(policies);
  return Status::Ok();
}

const FaultTolerancePolicy& MethodPolicies::ForOverridden(const MethodSpec& method,
                                                          bool idempotent) const {
  for (const Override& entry : methods_) {
    if (entry.method == method.method) return idempotent ? entry.idempotent : entry.policy;
  }
  return idempotent ? service_idempotent_ : service_;
}

}  // namespace ferry::cluster
