#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cluster/attempt_verdict.h"
#include "cluster/provider.h"
#include "ferry/framework/cluster_options.h"
#include "ferry/framework/load_balancer.h"
#include "ferry/framework/registry.h"
#include "thread_annotations.h"
#include "transport/io_thread_pool.h"

namespace ferry::cluster {

// A provider chosen for one attempt, kept alive until the attempt ends.
struct ProviderPick {
  std::shared_ptr<Provider> provider;
  bool probe = false;  // this attempt is the probe of a re-admitted provider
};

// The providers of one service as the registry lists them, with their connections, and the
// balancer that picks among those not ejected.
//
// Picks and reports run on the call path and take no lock of this class while nothing is
// ejected or re-admitted; registry updates, ejections and re-admissions take `mu_` and hand the
// balancer a new candidate list.
class ProviderSet {
 public:
  ProviderSet(std::string service, transport::IoThreadPool& pool, const ClientOptions& client,
              codec::BodyOptions body_options, const OutlierOptions& outlier,
              std::shared_ptr<LoadBalancer> balancer);
  ~ProviderSet();

  // The registry's full list: adds new providers, updates changed ones, and lets removed ones
  // drain (their connection closes when their last call ends).
  void Apply(const std::vector<ProviderInfo>& providers);

  // A provider not in `excluded`, counted in flight until Report() if the balancer reads load.
  // Without a provider when none is eligible. Inline for the usual pick, the balancer's first
  // choice being in service.
  [[gnu::always_inline]] ProviderPick Pick(std::optional<uint64_t> hash_key,
                                           std::span<const std::string> excluded) {
    const BalancerEndpoint* endpoint =
        balancer_->Select(SelectRequest{.hash_key = hash_key, .excluded = excluded});
    if (endpoint == nullptr) return {};
    // Null when the registry dropped it after the balancer's list was made.
    std::shared_ptr<Provider> provider = Provider::Of(*endpoint);
    if (provider == nullptr || provider->outlier().phase() != OutlierState::Phase::kServing ||
        provider->connection().draining()) {
      return PickPastSkipped(hash_key, excluded, *endpoint, std::move(provider));
    }
    if (tracks_load_) provider->load().in_flight.fetch_add(1, std::memory_order_relaxed);
    return ProviderPick{std::move(provider), false};
  }
  using Clock = std::chrono::steady_clock;

  // The end of an attempt to `pick` that started at `started`.
  void Report(const ProviderPick& pick, const AttemptVerdict& verdict, Clock::time_point started);
  // The part of Report() that judges the provider: outlier ejection and probes.
  void RecordHealth(Provider& provider, bool probe, ProviderHealth health);
  // Whether picks are counted in flight and timed (the balancer reads them): then every
  // attempt must be reported with Report().
  bool tracks_load() const { return tracks_load_; }

  // One provider as an operator's page shows it.
  struct ProviderState {
    std::string address;
    uint32_t weight = 0;
    std::string zone;
    // "in service", "warming up", "ejected", "probing" or "draining".
    std::string state;
    int32_t in_flight = -1;  // -1: not counted (the balancer reads no load)
  };
  std::vector<ProviderState> Describe(std::chrono::milliseconds warmup) const;

  // Why Pick() found nothing, for the caller's error message.
  std::string DescribeNoPick(size_t excluded) const;

  // Closes every connection, failing pending calls with CANCELLED; no lock is held meanwhile,
  // so their completions may report here.
  void Shutdown();

 private:
  // Pick() once the balancer chose `chosen`, which is not in service (ejected, removed, or
  // draining): probes it if it is due for a probe, else asks the balancer again without it.
  ProviderPick PickPastSkipped(std::optional<uint64_t> hash_key,
                               std::span<const std::string> excluded,
                               const BalancerEndpoint& chosen, std::shared_ptr<Provider> provider);
  void OnFailure(Provider& provider, bool probe);
  void EjectLocked(Provider& provider, Clock::time_point now) FERRY_REQUIRES(mu_);
  void PublishLocked() FERRY_REQUIRES(mu_);
  void Readmit(const std::weak_ptr<Provider>& provider);

  const std::string service_;
  transport::IoThreadPool& pool_;
  const ClientOptions client_;
  const codec::BodyOptions body_options_;
  const OutlierOptions outlier_;
  const std::shared_ptr<LoadBalancer> balancer_;
  const bool tracks_load_;  // the balancer reads in-flight counts and latencies

  mutable Mutex mu_;
  std::map<std::string, std::shared_ptr<Provider>, std::less<>> providers_ FERRY_GUARDED_BY(mu_);
  // Dropped by the registry but possibly still finishing calls: closed on Shutdown().
  std::vector<std::weak_ptr<Provider>> draining_ FERRY_GUARDED_BY(mu_);
  size_t ejected_ FERRY_GUARDED_BY(mu_) = 0;
  bool shut_down_ FERRY_GUARDED_BY(mu_) = false;
};

}  // namespace ferry::cluster
