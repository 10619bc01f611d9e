#include "builtin_balancers.h"

namespace ferry::loadbalance {

void RegisterBuiltinBalancers(ExtensionRegistry& registry) {
  RegisterRoundRobinBalancer(registry);
  RegisterRandomBalancer(registry);
  RegisterLeastActiveBalancer(registry);
  RegisterConsistentHashBalancer(registry);
  RegisterLatencyAwareBalancer(registry);
}

FERRY_REGISTER_BUILTIN_EXTENSIONS(RegisterBuiltinBalancers)

}  // namespace ferry::loadbalance
