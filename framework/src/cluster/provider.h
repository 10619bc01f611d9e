#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <memory>
#include <string>

#include "client/call_observer.h"
#include "client/client_connection.h"
#include "cluster/outlier_state.h"
#include "ferry/framework/load_balancer.h"
#include "ferry/framework/registry.h"

namespace ferry::cluster {

class Provider;
class ProviderSet;

// What a balancer holds of a provider: its live load and the way back to it. Deliberately free
// of anything tied to the channel's IO threads, since balancers may keep endpoints longer than
// the provider or even the channel lives (per-thread snapshot caches).
struct ProviderLoad final : EndpointLoad {
  std::weak_ptr<Provider> provider;
};

// One provider of the cluster: its connection, live load and outlier state. Owned by the
// provider set and by the attempts in flight to it, so that a provider the registry dropped
// stays usable until its last call ends; then its connection is closed. The channel makes sure
// none outlives its IO threads.
//
// A provider also observes the calls made through it that need no per-call bookkeeping (see
// SendSingleAttempt) and reports their outcome to its set.
class Provider : public std::enable_shared_from_this<Provider>, public client::CallObserver {
 public:
  static std::shared_ptr<Provider> Create(ProviderSet& set, boost::asio::io_context& io,
                                          transport::Endpoint endpoint, const ProviderInfo& info,
                                          const ClientOptions& options,
                                          codec::BodyOptions body_options);
  ~Provider();  // shuts the connection down
  Provider(const Provider&) = delete;
  Provider& operator=(const Provider&) = delete;

  // The provider behind an endpoint this channel gave its balancer (the balancer contract is
  // that a picked endpoint shares the `load` it was given); nullptr once it is gone.
  static std::shared_ptr<Provider> Of(const BalancerEndpoint& endpoint) {
    return static_cast<const ProviderLoad&>(*endpoint.load).provider.lock();
  }

  const std::string& address() const { return address_; }
  client::ClientConnection& connection() { return *connection_; }
  EndpointLoad& load() { return *load_; }
  OutlierState& outlier() { return outlier_; }

  // Folds one latency sample into load().ewma_latency_ns.
  void RecordLatency(std::chrono::nanoseconds latency);

  // The outcome of a call that is not a probe and whose latency nobody reads.
  void OnCallDone(const Status& status) override;

  // The rest is the provider set's, under its lock.
  const ProviderInfo& info() const { return info_; }
  void set_info(const ProviderInfo& info) { info_ = info; }
  // What the balancer is given.
  BalancerEndpoint Endpoint() const;
  boost::asio::steady_timer& ejection_timer() { return ejection_timer_; }

 private:
  Provider(ProviderSet& set, boost::asio::io_context& io, transport::Endpoint endpoint,
           const ProviderInfo& info, const ClientOptions& options, codec::BodyOptions body_options);

  // Outlives every call made through the provider: it shuts their connections down first.
  ProviderSet& set_;
  const std::string address_;
  ProviderInfo info_;
  const std::shared_ptr<ProviderLoad> load_ = std::make_shared<ProviderLoad>();
  OutlierState outlier_;
  std::shared_ptr<client::ClientConnection> connection_;
  boost::asio::steady_timer ejection_timer_;
};

}  // namespace ferry::cluster
