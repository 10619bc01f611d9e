#include "cluster/fault_tolerance_policy.h"

namespace ferry::cluster {
namespace {

Status Invalid(const std::string& key, const std::string& problem) {
  return Status(StatusCode::INVALID_ARGUMENT, key + ": " + problem);
}

Status ParseMode(const std::string& text, const std::string& key, FaultToleranceMode* out) {
  if (text == "failfast") {
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

Status Resolve(const FaultToleranceOptions& options, const std::string& key,
               std::vector<std::unique_ptr<RetryBudget>>* budgets, FaultTolerancePolicy* out) {
  if (Status status = ParseMode(options.mode, key, &out->mode); !status.ok()) return status;
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
  budgets->push_back(std::make_unique<RetryBudget>(options.retry_budget_ratio,
                                                   options.retry_budget_min_per_second));
  out->budget = budgets->back().get();
  return Status::Ok();
}

}  // namespace

Status MethodPolicies::Create(const ClusterOptions& options, std::unique_ptr<MethodPolicies>* out) {
  std::unique_ptr<MethodPolicies> policies(new MethodPolicies);
  if (Status status = Resolve(options.fault_tolerance, "client.fault_tolerance",
                              &policies->budgets_, &policies->service_);
      !status.ok()) {
    return status;
  }
  for (const auto& [method, method_options] : options.method_fault_tolerance) {
    FaultTolerancePolicy policy;
    if (Status status = Resolve(method_options, "client.methods." + method + ".fault_tolerance",
                                &policies->budgets_, &policy);
        !status.ok()) {
      return status;
    }
    policies->methods_.emplace_back(method, policy);
  }
  *out = std::move(policies);
  return Status::Ok();
}

const FaultTolerancePolicy& MethodPolicies::ForOverridden(std::string_view method) const {
  for (const auto& [name, policy] : methods_) {
    if (name == method) return policy;
  }
  return service_;
}

}  // namespace ferry::cluster
