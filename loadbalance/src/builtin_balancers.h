#pragma once

#include "ferry/codec/extension_registry.h"

namespace ferry::loadbalance {

// Each registers one balancer under its YAML name (docs/loadbalance.md).
void RegisterRoundRobinBalancer(ExtensionRegistry& registry);
void RegisterRandomBalancer(ExtensionRegistry& registry);
void RegisterLeastActiveBalancer(ExtensionRegistry& registry);
void RegisterConsistentHashBalancer(ExtensionRegistry& registry);
void RegisterLatencyAwareBalancer(ExtensionRegistry& registry);

}  // namespace ferry::loadbalance
