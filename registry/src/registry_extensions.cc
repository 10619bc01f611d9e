#include <memory>

#include "ferry/codec/extension_registry.h"
#include "ferry/framework/registry.h"
#include "static_registry.h"
#include "zookeeper_registry.h"

namespace ferry::registry {
namespace {

// Registries are looked up by URL scheme, so each is registered under its scheme's name.
void RegisterRegistryExtensions(ExtensionRegistry& extensions) {
  extensions.Register<Registry>(std::string(StaticRegistry::kScheme),
                                [] { return std::make_shared<StaticRegistry>(); });
  extensions.Register<Registry>(std::string(ZooKeeperRegistry::kScheme),
                                [] { return std::make_shared<ZooKeeperRegistry>(); });
}

}  // namespace

FERRY_REGISTER_BUILTIN_EXTENSIONS(RegisterRegistryExtensions)

}  // namespace ferry::registry
