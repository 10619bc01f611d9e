// A plugin built for an ABI this Ferry does not speak. Its register function must never run.

#include <cstdint>
#include <cstdlib>

#include "ferry/framework/plugin.h"

extern "C" __attribute__((visibility("default"))) uint32_t ferry_plugin_abi_version() {
  return 999;
}

extern "C" __attribute__((visibility("default"))) int ferry_plugin_register(
    ferry::ExtensionRegistry*) {
  std::abort();
}
