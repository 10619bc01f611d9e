#include "app/app_admin.h"

#include "app/redacted_yaml.h"
#include "client/direct_channel.h"
#include "cluster/cluster_channel.h"
#include "ferry/framework/logging.h"
#include "ferry/framework/metrics.h"

namespace ferry::app {
namespace {

// Samples this often; the status page's figures are over the last kWindow.
constexpr std::chrono::seconds kSampleEvery{5};
constexpr std::chrono::seconds kWindow{60};

std::vector<stats::MethodMetrics*> ServedMethods(const std::vector<Service*>& services) {
  std::vector<stats::MethodMetrics*> methods;
  for (const Service* service : services) {
    for (const Service::Method& method : service->methods()) {
      methods.push_back(&stats::MethodMetricsFor(stats::MethodMetrics::Side::kServer,
                                                 service->full_name(), method.spec->method));
    }
  }
  return methods;
}

}  // namespace

AppAdmin::AppAdmin(Inputs inputs)
    : inputs_(std::move(inputs)), window_(ServedMethods(inputs_.services), kWindow) {}

AppAdmin::~AppAdmin() { Stop(); }

std::vector<HttpRoute> AppAdmin::Routes() {
  const Config& config = *inputs_.config;
  return AdminRoutes(
      AdminSources{.app_name = inputs_.app_name,
                   .address = inputs_.address,
                   .ready = inputs_.ready,
                   .methods = [this] { return window_.Read(MethodWindow::Clock::now()); },
                   .clients = [this] { return Clients(); },
                   .slow_calls = inputs_.slow_calls,
                   .plugins = config.plugins,
                   .config_yaml = RedactedYaml(config.document),
                   .metrics_text = [] { return metrics::RenderText(metrics::Metrics()); },
                   .log_level_changeable = !config.server.http.admin_listen.empty()});
}

void AppAdmin::StartSampling() {
  window_.Sample(MethodWindow::Clock::now());
  sampler_ = std::thread([this] {
    MutexLock lock(mu_);
    for (;;) {
      const auto due = std::chrono::steady_clock::now() + kSampleEvery;
      while (!stopping_ && wake_.wait_until(lock.native(), due) != std::cv_status::timeout) {
      }
      if (stopping_) return;
      lock.Unlock();
      window_.Sample(MethodWindow::Clock::now());
      lock.Lock();
    }
  });
}

void AppAdmin::Stop() {
  {
    MutexLock lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (sampler_.joinable()) sampler_.join();
}

std::vector<ClientStatus> AppAdmin::Clients() const {
  std::vector<ClientStatus> clients;
  const Config& config = *inputs_.config;
  const Channels channels = inputs_.channels();
  for (const auto& [name, client] : config.clients) {
    const auto it = channels.find(name);
    if (it != channels.end() && it->second != nullptr) {
      clients.push_back(DescribeClient(name, client, config.registry.url, *it->second));
      continue;
    }
    const std::string target =
        !client.cluster.client.target.empty()
            ? client.cluster.client.target
            : client.cluster.service + " via " +
                  RedactedUrl(client.registry.empty() ? config.registry.url : client.registry);
    clients.push_back(
        ClientStatus{.name = name, .target = target, .in_use = false, .providers = {}});
  }
  return clients;
}

ClientStatus AppAdmin::DescribeClient(const std::string& name, const ClientConfig& config,
                                      const std::string& registry_url, Channel& channel) {
  ClientStatus status{.name = name, .target = config.cluster.client.target, .providers = {}};
  if (auto* direct = dynamic_cast<client::DirectChannel*>(&channel)) {
    status.providers.push_back(
        ProviderStatus{.address = config.cluster.client.target,
                       .state = "direct",
                       .weight = 0,
                       .in_flight = static_cast<int32_t>(direct->stats().calls_in_flight)});
    return status;
  }
  auto* cluster_channel = dynamic_cast<cluster::ClusterChannel*>(&channel);
  if (cluster_channel == nullptr) return status;
  cluster::Cluster& cluster = cluster_channel->cluster();
  status.target = cluster.service() + " via " +
                  RedactedUrl(config.registry.empty() ? registry_url : config.registry);
  for (const auto& provider : cluster.providers().Describe(cluster.warmup())) {
    status.providers.push_back(ProviderStatus{.address = provider.address,
                                              .state = provider.state,
                                              .weight = provider.weight,
                                              .in_flight = provider.in_flight});
  }
  return status;
}

}  // namespace ferry::app
