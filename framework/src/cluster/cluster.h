#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/fault_tolerance_policy.h"
#include "cluster/provider_set.h"
#include "cluster/request_hash_key.h"
#include "ferry/codec/message_codec.h"
#include "ferry/framework/call_options.h"
#include "ferry/framework/cluster_options.h"
#include "stats/call_metrics.h"
#include "stats/framework_metrics.h"
#include "thread_annotations.h"
#include "transport/io_thread_pool.h"

namespace google::protobuf {
class Message;
}

namespace ferry::cluster {

// Everything the calls of one cluster channel share: the IO threads, the providers and their
// balancer, the per-method policies. Calls refer to it by plain reference; the channel keeps it
// alive until its IO threads have stopped, so no call outlives it.
class Cluster {
 public:
  // INVALID_ARGUMENT naming the offending option.
  static Status Create(const ClusterOptions& options, std::unique_ptr<Cluster>* out);
  ~Cluster();

  const std::string& service() const { return service_; }
  ProviderSet& providers() { return *providers_; }
  std::chrono::milliseconds warmup() const { return warmup_; }
  // Retries, backups, ejections and budget refusals of this cluster's service.
  const stats::ClusterMetrics& metrics() const { return metrics_; }
  // Counts the call of `method` started at `started`, if the channel counts calls.
  stats::CallMeter MeterCall(const MethodSpec& method,
                             std::chrono::steady_clock::time_point started) const {
    return counts_calls_ ? stats::CallMeter(&stats::ClientMetricsFor(method), started)
                         : stats::CallMeter();
  }
  const FaultTolerancePolicy& PolicyFor(const MethodSpec& method, bool idempotent) const {
    return policies_->For(method, idempotent);
  }
  // The whole budget of a call: its own timeout, else the channel's default.
  std::chrono::milliseconds TimeoutOf(const CallOptions& options) const {
    return options.timeout > std::chrono::milliseconds::zero() ? options.timeout : default_timeout_;
  }
  // How requests are serialized and compressed, for every provider alike.
  const codec::BodyOptions& body_options() const { return body_; }
  // The clients' max_frame_bytes, which requests tell the providers (RpcMeta).
  size_t max_response_bytes() const { return max_response_bytes_; }
  std::optional<uint64_t> HashKeyOf(const CallOptions& options,
                                    const google::protobuf::Message& request) const {
    if (options.hash_key || !hash_field_.configured()) return options.hash_key;
    return hash_field_.Of(request);
  }
  boost::asio::io_context& NextIoContext() { return pool_->Next(); }

  // The registry's listener.
  void OnProviders(const std::vector<ProviderInfo>& providers);
  // Until the registry's first list arrived, or `timeout` passed; false on timeout.
  bool WaitForFirstList(std::chrono::milliseconds timeout);

  bool closed() const { return closed_.load(std::memory_order_acquire); }
  // Fails every pending call with CANCELLED, as it does calls made afterwards.
  void Close();
  // Stops the IO threads and waits for them, unless called from one of them; then only stops.
  void StopThreads();
  bool OnOwnIoThread() const;

 private:
  Cluster(const ClusterOptions& options, codec::BodyOptions body,
          std::unique_ptr<MethodPolicies> policies, std::shared_ptr<LoadBalancer> balancer);

  const std::string service_;
  const std::chrono::milliseconds default_timeout_;
  const std::chrono::milliseconds warmup_;
  const stats::ClusterMetrics& metrics_;
  const bool counts_calls_;
  const codec::BodyOptions body_;
  const size_t max_response_bytes_;
  const RequestHashKey hash_field_;
  const std::unique_ptr<MethodPolicies> policies_;
  // Before the providers: destroyed after them, since their connections and timers live on it.
  std::unique_ptr<transport::IoThreadPool> pool_;
  std::unique_ptr<ProviderSet> providers_;
  std::atomic<bool> closed_{false};

  Mutex first_list_mu_;
  std::condition_variable first_list_cv_;
  bool first_list_ FERRY_GUARDED_BY(first_list_mu_) = false;
};

}  // namespace ferry::cluster
