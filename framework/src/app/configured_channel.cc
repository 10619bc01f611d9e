#include "ferry/framework/configured_channel.h"

#include "ferry/framework/cluster_channel.h"

namespace ferry {

Status NewConfiguredChannel(const ClientConfig& client, std::shared_ptr<Registry> registry,
                            const RegistryOptions& registry_options,
                            std::shared_ptr<Channel>* out) {
  if (!client.cluster.client.target.empty()) return NewChannel(client.cluster.client, out);
  if (!client.registry.empty()) {
    RegistryOptions own = registry_options;
    own.url = client.registry;
    if (Status status = OpenRegistry(own, &registry); !status.ok()) return status;
  }
  if (registry == nullptr) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "client of " + client.cluster.service +
                      ": a service is found through a registry; set registry.url (or the "
                      "client's own registry:), or call a target instead");
  }
  return NewClusterChannel(client.cluster, std::move(registry), out);
}

}  // namespace ferry
