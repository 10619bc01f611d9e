#include "builtin_extensions.h"

namespace ferry::codec {

void RegisterProtobufSerializers(ExtensionRegistry& registry);
void RegisterZstdCompressor(ExtensionRegistry& registry);

void RegisterCodecExtensions(ExtensionRegistry& registry) {
  RegisterProtobufSerializers(registry);
  RegisterZstdCompressor(registry);
}

}  // namespace ferry::codec
