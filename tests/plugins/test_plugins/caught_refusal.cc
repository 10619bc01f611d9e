// A plugin that catches the refusal of one of its registrations (a wire id of Ferry's own
// range) and reports success anyway: LoadPlugin must still refuse it, registering nothing.

#include <cstdint>
#include <stdexcept>

#include "ferry/framework/filter.h"
#include "ferry/framework/plugin.h"
#include "test_serializer.h"

extern "C" __attribute__((visibility("default"))) uint32_t ferry_plugin_abi_version() {
  return FERRY_PLUGIN_ABI_VERSION;
}

extern "C" __attribute__((visibility("default"))) int ferry_plugin_register(
    ferry::ExtensionRegistry* registry) {
  registry->Register<ferry::ServerFilter>("caught_refusal_filter", [] { return nullptr; });
  try {
    RegisterTestSerializer(*registry, 7, "caught_refusal_serializer");
  } catch (const std::invalid_argument&) {
    // Goes on as if nothing happened.
  }
  return 0;
}
