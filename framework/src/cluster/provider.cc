#include "cluster/provider.h"

#include <algorithm>
#include <utility>

#include "cluster/attempt_verdict.h"
#include "cluster/provider_set.h"

namespace ferry::cluster {
namespace {

// Weight of a new sample in the latency average: 1/8, as TCP's smoothed RTT. Heavy enough to
// follow a provider that slows down within a few dozen calls, light enough that one slow call
// does not make a fast provider look slow.
constexpr int64_t kEwmaShift = 3;

}  // namespace

std::shared_ptr<Provider> Provider::Create(ProviderSet& set, boost::asio::io_context& io,
                                           transport::Endpoint endpoint, const ProviderInfo& info,
                                           const ClientOptions& options,
                                           codec::BodyOptions body_options) {
  std::shared_ptr<Provider> provider(
      new Provider(set, io, std::move(endpoint), info, options, body_options));
  provider->load_->provider = provider;
  return provider;
}

Provider::Provider(ProviderSet& set, boost::asio::io_context& io, transport::Endpoint endpoint,
                   const ProviderInfo& info, const ClientOptions& options,
                   codec::BodyOptions body_options)
    : set_(set),
      address_(info.address),
      info_(info),
      connection_(std::make_shared<client::ClientConnection>(io, std::move(endpoint), options,
                                                             body_options)),
      ejection_timer_(io) {}

Provider::~Provider() { connection_->Shutdown(); }

BalancerEndpoint Provider::Endpoint() const {
  return BalancerEndpoint{
      .address = address_,
      .weight = info_.weight,
      .start_time_ms = info_.start_time_ms,
      .load = load_,
  };
}

// Racing completions may overwrite each other's update; for an average that is harmless, and
// it keeps the update a plain load and store.
void Provider::RecordLatency(std::chrono::nanoseconds latency) {
  const int64_t sample = std::max<int64_t>(latency.count(), 1);
  const int64_t average = load_->ewma_latency_ns.load(std::memory_order_relaxed);
  const int64_t next = average == 0 ? sample : average + ((sample - average) >> kEwmaShift);
  load_->ewma_latency_ns.store(std::max<int64_t>(next, 1), std::memory_order_relaxed);
}

void Provider::OnCallDone(const Status& status) {
  // The common case, without the verdict table: an answer from a provider in service.
  if (status.ok()) {
    outlier_.RecordSuccess();
    return;
  }
  // Whether the request left matters only to a retry, and these calls have none.
  set_.RecordHealth(*this, /*probe=*/false,
                    JudgeAttempt(status, /*idempotent=*/false, /*certainly_unsent=*/false).health);
}

}  // namespace ferry::cluster
