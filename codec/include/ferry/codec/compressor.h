#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ferry::codec {

namespace compression_id {
inline constexpr uint8_t kNone = 0;
inline constexpr uint8_t kZstd = 1;
}  // namespace compression_id

class Compressor {
 public:
  static constexpr std::string_view kExtensionKind = "compressor";

  virtual ~Compressor() = default;
  virtual uint8_t id() const = 0;
  virtual std::string_view name() const = 0;
  // Appends the compressed form of `input` to `out`.
  virtual bool Compress(std::string_view input, int level, std::string* out) const = 0;
  // Appends the decompressed form to `out`; fails rather than produce more than `max_output`
  // bytes, so a small frame cannot expand into an unbounded allocation.
  virtual bool Decompress(std::string_view input, size_t max_output, std::string* out) const = 0;
};

// nullptr when unknown. The "none" compressor is not an object: id 0 means the body is raw.
const Compressor* FindCompressor(std::string_view name);
const Compressor* FindCompressor(uint8_t id);

}  // namespace ferry::codec
