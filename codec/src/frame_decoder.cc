#include "ferry/codec/frame_decoder.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace ferry::codec {

FrameDecoder::FrameDecoder(DecoderLimits limits) : limits_(limits) {}

void FrameDecoder::Compact() {
  if (begin_ == 0) return;
  std::memmove(buffer_.get(), buffer_.get() + begin_, end_ - begin_);
  end_ -= begin_;
  begin_ = 0;
}

void FrameDecoder::Reallocate(size_t capacity) {
  std::unique_ptr<uint8_t[]> larger(new uint8_t[capacity]);
  if (end_ > begin_) std::memcpy(larger.get(), buffer_.get() + begin_, end_ - begin_);
  end_ -= begin_;
  begin_ = 0;
  buffer_ = std::move(larger);
  capacity_ = capacity;
}

std::span<uint8_t> FrameDecoder::PrepareWrite(size_t min_size) {
  if (capacity_ - end_ < min_size) {
    Compact();
    if (capacity_ - end_ < min_size) {
      // Doubling keeps the copies of a large frame logarithmic; what the frame still lacks
      // bounds the growth, so a header's claim is never allocated ahead of its bytes.
      const size_t lacking = frame_length_ > end_ ? frame_length_ - end_ : 0;
      const size_t wanted = end_ + std::max(min_size, std::min(lacking, capacity_));
      Reallocate(std::max(wanted, end_ + min_size));
    }
  }
  return {buffer_.get() + end_, capacity_ - end_};
}

void FrameDecoder::CommitWrite(size_t n) { end_ += n; }

void FrameDecoder::Feed(std::string_view bytes) {
  auto space = PrepareWrite(bytes.size());
  std::memcpy(space.data(), bytes.data(), bytes.size());
  CommitWrite(bytes.size());
}

FrameDecoder::Result FrameDecoder::Fail(std::string reason) {
  error_ = std::move(reason);
  return Result::kError;
}

FrameDecoder::Result FrameDecoder::Next(Frame* out) {
  if (!error_.empty()) return Result::kError;
  const size_t available = end_ - begin_;
  if (available < kHeaderSize) {
    // Reject a wrong magic as soon as its two bytes are in, not after 28.
    if (available >= 2 &&
        (buffer_[begin_] != (kMagic >> 8) || buffer_[begin_ + 1] != (kMagic & 0xFF))) {
      return Fail("bad magic");
    }
    return Result::kNeedMore;
  }
  FrameHeader h;
  if (!ReadHeader(buffer_.get() + begin_, &h)) return Fail("bad magic");
  if (h.version_major != kVersionMajor) {
    return Fail("unsupported protocol major version " + std::to_string(h.version_major) +
                " (this peer speaks " + std::to_string(kVersionMajor) + ")");
  }
  if (h.meta_length > limits_.max_meta_bytes) {
    return Fail("meta length " + std::to_string(h.meta_length) + " exceeds limit " +
                std::to_string(limits_.max_meta_bytes));
  }
  // 64-bit sum: two 32-bit lengths cannot overflow it.
  const uint64_t frame_length = uint64_t{kHeaderSize} + h.meta_length + h.body_length;
  if (frame_length > limits_.max_frame_bytes) {
    return Fail("frame length " + std::to_string(frame_length) + " exceeds limit " +
                std::to_string(limits_.max_frame_bytes));
  }
  if (available < frame_length) {
    // Remembered so that the reads that follow may grow the buffer towards it: the frame
    // starts at 0 once compacted, hence its length is where its end will be.
    Compact();
    frame_length_ = frame_length;
    return Result::kNeedMore;
  }
  const uint8_t* p = buffer_.get() + begin_ + kHeaderSize;
  out->header = h;
  out->meta.assign(reinterpret_cast<const char*>(p), h.meta_length);
  out->body.assign(reinterpret_cast<const char*>(p + h.meta_length), h.body_length);
  begin_ += frame_length;
  frame_length_ = 0;
  if (begin_ == end_) {
    begin_ = end_ = 0;
    if (capacity_ > kRetainedBufferBytes) {
      buffer_.reset();
      capacity_ = 0;
    }
  }
  return Result::kFrame;
}

}  // namespace ferry::codec
