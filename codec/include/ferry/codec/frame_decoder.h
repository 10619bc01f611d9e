#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ferry/codec/frame_header.h"

namespace ferry::codec {

struct DecoderLimits {
  // Header + meta + body. A frame claiming more closes the connection before anything is
  // allocated for it.
  size_t max_frame_bytes = 16u << 20;
  size_t max_meta_bytes = 64u << 10;
};

struct Frame {
  FrameHeader header;
  std::string meta;  // serialized ferry.wire.RpcMeta
  std::string body;  // serialized (maybe compressed) message
};

// Incremental decoder for one TCP byte stream: any segmentation works, from one byte per read
// to many frames per read. Once it reports an error it stays failed; the connection must close.
class FrameDecoder {
 public:
  enum class Result { kFrame, kNeedMore, kError };

  explicit FrameDecoder(DecoderLimits limits = {});

  // Space to read into, at least `min_size` bytes; valid until the next call on the decoder.
  std::span<uint8_t> PrepareWrite(size_t min_size = 16 * 1024);
  void CommitWrite(size_t n);
  // Copies `bytes` in; the same as PrepareWrite + memcpy + CommitWrite.
  void Feed(std::string_view bytes);

  // Moves the next complete frame into `out`. Reuses out's string capacity.
  Result Next(Frame* out);

  const std::string& error() const { return error_; }
  size_t buffered_bytes() const { return end_ - begin_; }
  // The bytes received and not yet decoded.
  std::string_view buffered() const {
    return {reinterpret_cast<const char*>(buffer_.data()) + begin_, end_ - begin_};
  }
  const DecoderLimits& limits() const { return limits_; }

 private:
  Result Fail(std::string reason);
  void Compact();

  DecoderLimits limits_;
  std::vector<uint8_t> buffer_;
  size_t begin_ = 0;  // first unread byte
  size_t end_ = 0;    // one past the last written byte
  std::string error_;
};

}  // namespace ferry::codec
