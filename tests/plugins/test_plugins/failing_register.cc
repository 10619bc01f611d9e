// A plugin whose register function reports failure.

#include <cstdint>

#include "ferry/framework/plugin.h"

extern "C" __attribute__((visibility("default"))) uint32_t ferry_plugin_abi_version() {
  return FERRY_PLUGIN_ABI_VERSION;
}

extern "C" __attribute__((visibility("default"))) int ferry_plugin_register(
    ferry::ExtensionRegistry*) {
  return 3;
}
