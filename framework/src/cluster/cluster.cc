#include "cluster/cluster.h"

#include <utility>

#include "ferry/codec/compressor.h"
#include "ferry/codec/extension_registry.h"
#include "ferry/codec/serializer.h"

namespace ferry::cluster {
namespace {

Status Invalid(const std::string& message) { return Status(StatusCode::INVALID_ARGUMENT, message); }

std::string Joined(const std::vector<std::string>& names) {
  std::string joined;
  for (const auto& name : names) joined += (joined.empty() ? "" : ", ") + name;
  return joined.empty() ? "none; link ferry::loadbalance" : joined;
}

Status ResolveBody(const ClientOptions& options, codec::BodyOptions* out) {
  const codec::Serializer* serializer = codec::FindSerializer(options.serializer);
  if (serializer == nullptr) {
    return Invalid("client.serializer: unknown serializer '" + options.serializer + "'");
  }
  out->serializer = serializer->id();
  out->compress_threshold = options.compress_threshold;
  out->compression_level = options.compression_level;
  if (options.compression != "none") {
    const codec::Compressor* compressor = codec::FindCompressor(options.compression);
    if (compressor == nullptr) {
      return Invalid("client.compression.algorithm: unknown algorithm '" + options.compression +
                     "'");
    }
    out->compression = compressor->id();
  }
  return Status::Ok();
}

Status CheckOutlier(const OutlierOptions& options) {
  if (options.base_ejection.count() <= 0) {
    return Invalid("client.outlier.base_ejection_ms: must be positive");
  }
  if (options.max_ejection < options.base_ejection) {
    return Invalid("client.outlier.max_ejection_ms: must not be below base_ejection_ms");
  }
  if (!(options.max_ejected_ratio >= 0.0 && options.max_ejected_ratio <= 1.0)) {
    return Invalid("client.outlier.max_ejected_ratio: " +
                   std::to_string(options.max_ejected_ratio) + " is outside [0, 1]");
  }
  return Status::Ok();
}

Status NewBalancer(const LoadBalancerOptions& options, std::shared_ptr<LoadBalancer>* out) {
  auto& extensions = ExtensionRegistry::Instance();
  std::shared_ptr<LoadBalancer> balancer = extensions.Create<LoadBalancer>(options.name);
  if (balancer == nullptr) {
    return Invalid("client.loadbalance.name: unknown load balancer '" + options.name +
                   "' (known: " + Joined(extensions.Names<LoadBalancer>()) + ")");
  }
  if (Status status = balancer->Configure(options); !status.ok()) return status;
  *out = std::move(balancer);
  return Status::Ok();
}

}  // namespace

Status Cluster::Create(const ClusterOptions& options, std::unique_ptr<Cluster>* out) {
  if (options.service.empty()) return Invalid("client.service: must name the service to call");
  codec::BodyOptions body;
  if (Status status = ResolveBody(options.client, &body); !status.ok()) return status;
  if (Status status = CheckOutlier(options.outlier); !status.ok()) return status;
  std::unique_ptr<MethodPolicies> policies;
  if (Status status = MethodPolicies::Create(options, &policies); !status.ok()) return status;
  std::shared_ptr<LoadBalancer> balancer;
  if (Status status = NewBalancer(options.loadbalance, &balancer); !status.ok()) return status;
  out->reset(new Cluster(options, body, std::move(policies), std::move(balancer)));
  return Status::Ok();
}

Cluster::Cluster(const ClusterOptions& options, codec::BodyOptions body,
                 std::unique_ptr<MethodPolicies> policies, std::shared_ptr<LoadBalancer> balancer)
    : service_(options.service),
      default_timeout_(options.client.default_timeout),
      warmup_(options.loadbalance.warmup),
      metrics_(stats::ClusterFor(options.service)),
      counts_calls_(options.client.metrics),
      body_(body),
      max_response_bytes_(options.client.max_frame_bytes),
      hash_field_(options.loadbalance.hash_field),
      policies_(std::move(policies)),
      pool_(std::make_unique<transport::IoThreadPool>(options.client.io_threads, "ferry-cluster")),
      providers_(std::make_unique<ProviderSet>(options.service, *pool_, options.client, body,
                                               options.outlier, std::move(balancer))) {}

// The providers go first: their connections and timers need the pool's io_contexts.
Cluster::~Cluster() {
  Close();
  providers_.reset();
  pool_.reset();
}

void Cluster::OnProviders(const std::vector<ProviderInfo>& providers) {
  providers_->Apply(providers);
  MutexLock lock(first_list_mu_);
  if (!first_list_) {
    first_list_ = true;
    first_list_cv_.notify_all();
  }
}

bool Cluster::WaitForFirstList(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  MutexLock lock(first_list_mu_);
  while (!first_list_) {
    if (first_list_cv_.wait_until(lock.native(), deadline) == std::cv_status::timeout) {
      return first_list_;
    }
  }
  return true;
}

void Cluster::Close() {
  if (closed_.exchange(true, std::memory_order_acq_rel)) return;
  providers_->Shutdown();
}

void Cluster::StopThreads() {
  pool_->Stop();
  if (!OnOwnIoThread()) pool_->Join();
}

bool Cluster::OnOwnIoThread() const {
  for (size_t i = 0; i < pool_->size(); ++i) {
    if (pool_->At(i).get_executor().running_in_this_thread()) return true;
  }
  return false;
}

}  // namespace ferry::cluster
