#pragma once

namespace ferry {
class ExtensionRegistry;
}

namespace ferry::codec {

// Same shape as a plugin's entry point: codec's serializers and compressors enter the registry
// exactly as a dlopen'ed extension would.
void RegisterCodecExtensions(ExtensionRegistry& registry);

}  // namespace ferry::codec
