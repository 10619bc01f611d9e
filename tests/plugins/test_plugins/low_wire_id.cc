// A plugin registering a filter, then a serializer with a wire id of Ferry's own range: the
// registration throws, and LoadPlugin must report it and leave the filter unregistered too.

#include <cstdint>

#include "ferry/framework/filter.h"
#include "ferry/framework/plugin.h"
#include "test_serializer.h"

extern "C" __attribute__((visibility("default"))) uint32_t ferry_plugin_abi_version() {
  return FERRY_PLUGIN_ABI_VERSION;
}

extern "C" __attribute__((visibility("default"))) int ferry_plugin_register(
    ferry::ExtensionRegistry* registry) {
  registry->Register<ferry::ServerFilter>("low_wire_id_filter", [] { return nullptr; });
  RegisterTestSerializer(*registry, 7, "low_wire_id_serializer");
  return 0;
}
