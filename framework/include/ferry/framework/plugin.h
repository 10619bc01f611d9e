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
//
// `registry` is the plugin's own for the call, adopted by the host once register returns 0: all
// or nothing, so a plugin whose registration fails anywhere leaves nothing registered. Keep no
// pointer to it. Serializers and compressors a plugin registers must have wire ids 128-255.
#define FERRY_PLUGIN_ABI_VERSION 11u

extern "C" {
using FerryPluginAbiVersionFn = uint32_t (*)();
using FerryPluginRegisterFn = int (*)(ferry::ExtensionRegistry* registry);
}

namespace ferry {

// dlopen()s `path` and registers its extensions, all or none. FAILED_PRECONDITION naming the
// path and the cause when the file is missing or not a shared object, a symbol is missing, the
// ABI version differs, the plugin's register function fails, or one of its registrations does
// (a name already taken, a wire id outside 128-255 or already taken).
Status LoadPlugin(const std::string& path);

}  // namespace ferry
