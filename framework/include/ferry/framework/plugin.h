#pragma once

#include <cstdint>
#include <string>

#include "ferry/codec/status.h"

namespace ferry {
class ExtensionRegistry;
}

// The C ABI between Ferry and a plugin shared object. A plugin exports both functions:
//
//   extern "C" uint32_t ferry_plugin_abi_version() { return FERRY_PLUGIN_ABI_VERSION; }
//   extern "C" int ferry_plugin_register(ferry::ExtensionRegistry* registry) {
//     RegisterMyExtensions(*registry);  // the same function a built-in library registers with
//     return 0;
//   }
//
// The host checks the version before calling register, so a plugin built against another ABI is
// refused instead of crashing. Bump the version whenever an extension interface changes.
#define FERRY_PLUGIN_ABI_VERSION 6u

extern "C" {
using FerryPluginAbiVersionFn = uint32_t (*)();
using FerryPluginRegisterFn = int (*)(ferry::ExtensionRegistry* registry);
}

namespace ferry {

// dlopen()s `path` and registers its extensions. FAILED_PRECONDITION naming the path and the
// cause when the file is missing or not a shared object, a symbol is missing, the ABI version
// differs, or the plugin's register function fails.
Status LoadPlugin(const std::string& path);

}  // namespace ferry
