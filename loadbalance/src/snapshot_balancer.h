#pragma once

#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "ferry/framework/load_balancer.h"
#include "snapshot_cell.h"

namespace ferry::loadbalance {

// Configure() and Update() for balancers that pick from an immutable snapshot: Update() builds a
// new `Snapshot(endpoints, options)` and publishes it through a SnapshotCell, so Select() never
// waits for an update and never sees half of one. Options apply from the next Update().
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
    snapshot_.Store(std::make_shared<const Snapshot>(std::move(endpoints), options_));
  }

 protected:
  // Checks options specific to the balancer.
  virtual Status Validate(const LoadBalancerOptions&) const { return Status::Ok(); }

  // nullptr before the first Update(); valid until the calling thread next loads a snapshot of
  // any balancer (SnapshotCell::Load), as is `*cursor`, the thread's word of state for it.
  const Snapshot* Current(uint64_t** cursor = nullptr) const { return snapshot_.Load(cursor); }

 private:
  std::mutex options_mu_;  // Configure() and Update() only, never Select()
  LoadBalancerOptions options_;
  SnapshotCell<Snapshot> snapshot_;
};

}  // namespace ferry::loadbalance
