#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "ferry/framework/load_balancer.h"

namespace ferry::loadbalance {

// Configure() and Update() for balancers that pick from an immutable snapshot: Update() builds a
// new `Snapshot(endpoints, options)` and swaps it in atomically, so Select() never waits for an
// update and never sees half of one. Options apply from the next Update().
template <class Snapshot>
class SnapshotBalancer : public LoadBalancer {
 public:
  Status Configure(const LoadBalancerOptions& options) override {
    if (options.warmup.count() < 0) {
      return Status(StatusCode::INVALID_ARGUMENT, "loadbalance.warmup_ms must not be negative");
    }
    if (Status status = Validate(options); !status.ok()) return status;
    std::lock_guard lock(options_mu_);
    options_ = options;
    return Status::Ok();
  }

  void Update(std::vector<BalancerEndpoint> endpoints) override {
    std::lock_guard lock(options_mu_);
    snapshot_.store(std::make_shared<const Snapshot>(std::move(endpoints), options_),
                    std::memory_order_release);
  }

 protected:
  // Checks options specific to the balancer.
  virtual Status Validate(const LoadBalancerOptions&) const { return Status::Ok(); }

  // nullptr before the first Update().
  std::shared_ptr<const Snapshot> Current() const {
    return snapshot_.load(std::memory_order_acquire);
  }

 private:
  std::mutex options_mu_;  // Configure() and Update() only, never Select()
  LoadBalancerOptions options_;
  std::atomic<std::shared_ptr<const Snapshot>> snapshot_;
};

}  // namespace ferry::loadbalance
