// A plugin registering one name twice: the registry throws, and LoadPlugin must report it.

#include <cstdint>
#include <memory>

#include "ferry/codec/extension_registry.h"
#include "ferry/framework/filter.h"
#include "ferry/framework/plugin.h"

extern "C" __attribute__((visibility("default"))) uint32_t ferry_plugin_abi_version() {
  return FERRY_PLUGIN_ABI_VERSION;
}

extern "C" __attribute__((visibility("default"))) int ferry_plugin_register(
    ferry::ExtensionRegistry* registry) {
  for (int i = 0; i < 2; ++i) {
    registry->Register<ferry::ServerFilter>("duplicate_test_filter", [] { return nullptr; });
  }
  return 0;
}
