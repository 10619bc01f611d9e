// A plugin adding a serializer with a wire id of the plugins' range: it loads.

#include <cstdint>

#include "ferry/framework/plugin.h"
#include "test_serializer.h"

extern "C" __attribute__((visibility("default"))) uint32_t ferry_plugin_abi_version() {
  return FERRY_PLUGIN_ABI_VERSION;
}

extern "C" __attribute__((visibility("default"))) int ferry_plugin_register(
    ferry::ExtensionRegistry* registry) {
  RegisterTestSerializer(*registry, 200, "plugin_test_serializer");
  return 0;
}
