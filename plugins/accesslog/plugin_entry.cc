// The plugin's only exported symbols; everything else is built with hidden visibility.

#include <cstdint>

#include "accesslog_filters.h"
#include "ferry/framework/plugin.h"

#define FERRY_PLUGIN_EXPORT extern "C" __attribute__((visibility("default")))

FERRY_PLUGIN_EXPORT uint32_t ferry_plugin_abi_version() { return FERRY_PLUGIN_ABI_VERSION; }

// Registers into the host's registry, never ExtensionRegistry::Instance(): this shared object
// has its own copy of the codec library, and so its own, unused, registry instance.
FERRY_PLUGIN_EXPORT int ferry_plugin_register(ferry::ExtensionRegistry* registry) {
  ferry::accesslog::RegisterAccessLogFilters(*registry);
  return 0;
}
