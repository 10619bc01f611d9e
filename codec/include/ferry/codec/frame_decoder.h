#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "ferry/codec/frame_header.h"

namespace ferry::codec {

// What a peer accepts unless configured otherwise (max_frame_bytes).
inline constexpr size_t kDefaultMaxFrameBytes = 16u << 20;

struct DecoderLimits {
  // Header + meta + body. A frame claiming more closes the connection before anything is
  // allocated for it.
  size_t max_frame_bytes = kDefaultMaxFrameBytes;
  size_t max_meta_bytes = 64u << 10;
};

// What the decoder keeps between frames: a buffer grown for a large frame is given back once
// that frame has been decoded, so a connection holds large buffers only while large frames are
// arriving.
inline constexpr size_t kRetainedBufferBytes = 64u << 10;

struct Frame {
  FrameHeader header;
  std::string meta;  // serialized ferry.wire.RpcMeta
  std::string body;  // serialized (maybe compressed) message
};

// Incremental decoder for one TCP byte stream: any segmentation works, from one byte per read
// to many frames per read. Once it reports an error it stays failed; the connection must close.
//
// Memory follows the bytes that really arrived, not the lengths a header claims: the buffer
// grows (doubling, so a large frame costs a logarithmic number of copies) only when a read
// needs room, never to a frame's announced size at once, and it is not zero-filled. A peer that
// announces a 16 MiB frame and sends 100 bytes costs a read's worth of buffer.
class FrameDecoder {
 public:
  enum class Result { kFrame, kNeedMore, kError };

  explicit FrameDecoder(DecoderLimits limits = {});

  // Space to read into, at least `min_size` bytes (more while a large frame is arriving, up to
  // what it still lacks); valid until the next call on the decoder.
  std::span<uint8_t> PrepareWrite(size_t min_size = 16 * 1024);
  void CommitWrite(size_t n);
  // Copies `bytes` in; the same as PrepareWrite + memcpy + CommitWrite.
  void Feed(std::string_view bytes);

  // Moves the next complete frame into `out`. Reuses out's string capacity.
  Result Next(Frame* out);

  const std::string& error() const { return error_; }
  size_t buffered_bytes() const { return end_ - begin_; }
  // The memory the decoder holds for its buffer.
  size_t capacity() const { return capacity_; }
  // The bytes received and not yet decoded.
  std::string_view buffered() const {
    return {reinterpret_cast<const char*>(buffer_.get()) + begin_, end_ - begin_};
  }
  const DecoderLimits& limits() const { return limits_; }

 private:
  Result Fail(std::string reason);
  void Compact();
  // Moves the unread bytes into a buffer of `capacity` bytes.
  void Reallocate(size_t capacity);

  DecoderLimits limits_;
  std::unique_ptr<uint8_t[]> buffer_;  // uninitialized: only bytes received are ever written
  size_t capacity_ = 0;
  size_t begin_ = 0;         // first unread byte
  size_t end_ = 0;           // one past the last written byte
  size_t frame_length_ = 0;  // of the frame at begin_, once its header is in; else 0
  std::string error_;
};

}  // namespace ferry::codec
