// A plugin adding a filter and a serializer whose wire id plugin_serializer.cc's has already:
// once that one is loaded, LoadPlugin must refuse this one whole.

#include <cstdint>

#include "ferry/framework/filter.h"
#include "ferry/framework/plugin.h"
#include "test_serializer.h"

extern "C" __attribute__((visibility("default"))) uint32_t ferry_plugin_abi_version() {
  return FERRY_PLUGIN_ABI_VERSION;
}

extern "C" __attribute__((visibility("default"))) int ferry_plugin_register(
    ferry::ExtensionRegistry* registry) {
  registry->Register<ferry::ServerFilter>("same_wire_id_filter", [] { return nullptr; });
  RegisterTestSerializer(*registry, 200, "other_test_serializer");
  return 0;
}
