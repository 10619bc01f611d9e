#include "ferry/codec/compressor.h"
#include "ferry/codec/serializer.h"
#include "id_lookup.h"

namespace ferry::codec {
namespace {

IdLookup<Serializer>& Serializers() {
  static IdLookup<Serializer> lookup;
  return lookup;
}
IdLookup<Compressor>& Compressors() {
  static IdLookup<Compressor> lookup;
  return lookup;
}

}  // namespace

const Serializer* FindSerializer(std::string_view name) { return Serializers().ByName(name); }
const Serializer* FindSerializer(uint8_t id) { return Serializers().ById(id); }
const Compressor* FindCompressor(std::string_view name) { return Compressors().ByName(name); }
const Compressor* FindCompressor(uint8_t id) {
  if (id == compression_id::kNone) return nullptr;
  return Compressors().ById(id);
}

}  // namespace ferry::codec
