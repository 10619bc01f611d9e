#include "cluster/provider_set.h"

#include <utility>

#include "logger.h"
#include "stats/framework_metrics.h"

namespace ferry::cluster {
namespace {

using Phase = OutlierState::Phase;

// Picks skipped because the provider was ejected or removed after the balancer's list was made,
// or is being probed by another call. Only a provider set in upheaval gets near it; past it the
// call fails rather than spin.
constexpr int kMaxSkippedPicks = 64;

long long Ms(std::chrono::milliseconds d) { return static_cast<long long>(d.count()); }

}  // namespace

ProviderSet::ProviderSet(std::string service, transport::IoThreadPool& pool,
                         const ClientOptions& client, codec::BodyOptions body_options,
                         const OutlierOptions& outlier, std::shared_ptr<LoadBalancer> balancer)
    : service_(std::move(service)),
      pool_(pool),
      client_(client),
      body_options_(body_options),
      outlier_(outlier),
      balancer_(std::move(balancer)),
      tracks_load_(balancer_->ReadsLoad()) {}

ProviderSet::~ProviderSet() { Shutdown(); }

void ProviderSet::Apply(const std::vector<ProviderInfo>& providers) {
  MutexLock lock(mu_);
  if (shut_down_) return;
  std::map<std::string, std::shared_ptr<Provider>, std::less<>> next;
  size_t added = 0;
  for (const ProviderInfo& info : providers) {
    if (next.contains(info.address)) continue;
    if (auto it = providers_.find(info.address); it != providers_.end()) {
      if (it->second->info() != info) it->second->set_info(info);
      next.emplace(info.address, std::move(it->second));
      providers_.erase(it);
      continue;
    }
    transport::Endpoint endpoint;
    if (Status parsed = transport::ParseEndpoint(info.address, &endpoint); !parsed.ok()) {
      Logger().warn("{}: ignoring provider with bad address: {}", service_, parsed.message());
      continue;
    }
    next.emplace(info.address, Provider::Create(*this, pool_.Next(), std::move(endpoint), info,
                                                client_, body_options_));
    ++added;
  }
  // What is left was removed: it finishes the calls it has, then closes (see Provider).
  std::erase_if(draining_, [](const std::weak_ptr<Provider>& p) { return p.expired(); });
  for (auto& [address, provider] : providers_) {
    if (provider->outlier().phase() == Phase::kEjected) --ejected_;
    provider->ejection_timer().cancel();
    draining_.push_back(provider);
  }
  Logger().info("{}: {} provider(s), {} new, {} removed", service_, next.size(), added,
                providers_.size());
  providers_.swap(next);
  PublishLocked();
}

ProviderPick ProviderSet::PickPastSkipped(std::optional<uint64_t> hash_key,
                                          std::span<const std::string> excluded,
                                          const BalancerEndpoint& chosen,
                                          std::shared_ptr<Provider> provider) {
  std::vector<std::string> skipped(excluded.begin(), excluded.end());
  const BalancerEndpoint* endpoint = &chosen;
  for (int skips = 0;; ++skips) {
    const Phase phase = provider && !provider->connection().draining() ? provider->outlier().phase()
                                                                       : Phase::kEjected;
    if (phase == Phase::kServing ||
        (phase == Phase::kProbing && provider->outlier().ClaimProbe())) {
      if (tracks_load_) provider->load().in_flight.fetch_add(1, std::memory_order_relaxed);
      return ProviderPick{std::move(provider), phase == Phase::kProbing};
    }
    if (skips == kMaxSkippedPicks) return {};
    skipped.push_back(endpoint->address);
    endpoint = balancer_->Select(SelectRequest{.hash_key = hash_key, .excluded = skipped});
    if (endpoint == nullptr) return {};
    provider = Provider::Of(*endpoint);
  }
}

void ProviderSet::Report(const ProviderPick& pick, const AttemptVerdict& verdict,
                         Clock::time_point started) {
  Provider& provider = *pick.provider;
  if (tracks_load_) {
    provider.load().in_flight.fetch_sub(1, std::memory_order_relaxed);
    if (verdict.latency_sample) provider.RecordLatency(Clock::now() - started);
  }
  RecordHealth(provider, pick.probe, verdict.health);
}

void ProviderSet::RecordHealth(Provider& provider, bool probe, ProviderHealth health) {
  switch (health) {
    case ProviderHealth::kAnswered:
      if (!probe) {
        provider.outlier().RecordSuccess();
        return;
      }
      {
        MutexLock lock(mu_);
        if (provider.outlier().phase() == Phase::kProbing) {
          provider.outlier().Restore(Clock::now());
          Logger().info("{}: provider {} answered its probe and is back in service", service_,
                        provider.address());
        }
      }
      return;
    case ProviderHealth::kFailed:
      OnFailure(provider, probe);
      return;
    case ProviderHealth::kUnknown:
      if (probe) provider.outlier().ReleaseProbe();
      return;
  }
}

void ProviderSet::OnFailure(Provider& provider, bool probe) {
  const bool streak = provider.outlier().RecordFailure(outlier_.consecutive_failures);
  if (!streak && !probe) return;
  MutexLock lock(mu_);
  const auto it = providers_.find(provider.address());
  if (shut_down_ || it == providers_.end() || it->second.get() != &provider) return;
  const Phase phase = provider.outlier().phase();
  // While probing, only the probe's own outcome counts: calls still finishing from before the
  // ejection say nothing about the provider now.
  if (phase == Phase::kEjected || (phase == Phase::kProbing && !probe)) return;
  EjectLocked(provider, Clock::now());
}

void ProviderSet::EjectLocked(Provider& provider, Clock::time_point now) {
  const auto cap =
      static_cast<size_t>(outlier_.max_ejected_ratio * static_cast<double>(providers_.size()));
  if (ejected_ >= cap) {
    // Over the cap: keep it, and let the next call probe it again if it was probing.
    provider.outlier().ReleaseProbe();
    Logger().debug("{}: not ejecting {}: {} of {} provider(s) already ejected", service_,
                   provider.address(), ejected_, providers_.size());
    return;
  }
  const std::chrono::milliseconds period = provider.outlier().Eject(now, outlier_);
  ++ejected_;
  stats::ClusterFor(service_).ejections->Increment();
  Logger().warn("{}: ejecting provider {} for {} ms (ejection level {})", service_,
                provider.address(), Ms(period), provider.outlier().level());
  provider.ejection_timer().expires_after(period);
  provider.ejection_timer().async_wait(
      [this, weak = provider.weak_from_this()](const boost::system::error_code& ec) {
        if (!ec) Readmit(weak);
      });
  PublishLocked();
}

void ProviderSet::Readmit(const std::weak_ptr<Provider>& weak) {
  // Declared before the lock: if this is the last owner, the provider is destroyed unlocked.
  const std::shared_ptr<Provider> provider = weak.lock();
  if (provider == nullptr) return;
  MutexLock lock(mu_);
  const auto it = providers_.find(provider->address());
  if (shut_down_ || it == providers_.end() || it->second != provider ||
      provider->outlier().phase() != Phase::kEjected) {
    return;
  }
  provider->outlier().Readmit();
  --ejected_;
  Logger().info("{}: re-admitting provider {}; its next call is a probe", service_,
                provider->address());
  PublishLocked();
}

void ProviderSet::PublishLocked() {
  std::vector<BalancerEndpoint> candidates;
  candidates.reserve(providers_.size());
  for (auto& [address, provider] : providers_) {
    if (provider->outlier().phase() != Phase::kEjected) candidates.push_back(provider->Endpoint());
  }
  balancer_->Update(std::move(candidates));
}

std::vector<ProviderSet::ProviderState> ProviderSet::Describe(
    std::chrono::milliseconds warmup) const {
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  MutexLock lock(mu_);
  std::vector<ProviderState> states;
  for (const auto& [address, provider] : providers_) {
    ProviderState state{
        .address = address, .weight = provider->info().weight, .zone = provider->info().zone};
    const Phase phase = provider->outlier().phase();
    if (provider->connection().draining()) {
      state.state = "draining";
    } else if (phase == Phase::kEjected) {
      state.state = "ejected";
    } else if (phase == Phase::kProbing) {
      state.state = "probing";
    } else if (warmup.count() > 0 && now_ms - provider->info().start_time_ms < warmup.count()) {
      state.state = "warming up";
    } else {
      state.state = "in service";
    }
    if (tracks_load_) state.in_flight = provider->load().in_flight.load(std::memory_order_relaxed);
    states.push_back(std::move(state));
  }
  return states;
}

std::string ProviderSet::DescribeNoPick(size_t excluded) const {
  MutexLock lock(mu_);
  if (providers_.empty()) return "no provider of " + service_ + " is known to the registry";
  return "no provider of " + service_ + " is available: " + std::to_string(providers_.size()) +
         " known, " + std::to_string(ejected_) + " ejected, " + std::to_string(excluded) +
         " already tried";
}

void ProviderSet::Shutdown() {
  std::vector<std::shared_ptr<Provider>> open;
  {
    MutexLock lock(mu_);
    if (shut_down_) return;
    shut_down_ = true;
    for (auto& [address, provider] : providers_) open.push_back(provider);
    for (auto& weak : draining_) {
      if (auto provider = weak.lock()) open.push_back(std::move(provider));
    }
    for (auto& provider : open) provider->ejection_timer().cancel();
  }
  for (auto& provider : open) provider->connection().Shutdown();
}

}  // namespace ferry::cluster
