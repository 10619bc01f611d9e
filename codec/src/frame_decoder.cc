#include "ferry/codec/frame_decoder.h"

#include <cstring>
#include <string>

namespace ferry::codec {

FrameDecoder::FrameDecoder(DecoderLimits limits) : limits_(limits) {}

void FrameDecoder::Compact() {
  if (begin_ == 0) return;
  std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
  end_ -= begin_;
  begin_ = 0;
}

std::span<uint8_t> FrameDecoder::PrepareWrite(size_t min_size) {
  if (buffer_.size() - end_ < min_size) {
    Compact();
    if (buffer_.size() - end_ < min_size) buffer_.resize(end_ + min_size);
  }
  return {buffer_.data() + end_, buffer_.size() - end_};
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
  if (!ReadHeader(buffer_.data() + begin_, &h)) return Fail("bad magic");
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
    // Let the next read land contiguously; growth is bounded by the validated frame length.
    if (buffer_.size() - begin_ < frame_length) {
      Compact();
      if (buffer_.size() < frame_length) buffer_.resize(frame_length);
    }
    return Result::kNeedMore;
  }
  const uint8_t* p = buffer_.data() + begin_ + kHeaderSize;
  out->header = h;
  out->meta.assign(reinterpret_cast<const char*>(p), h.meta_length);
  out->body.assign(reinterpret_cast<const char*>(p + h.meta_length), h.body_length);
  begin_ += frame_length;
  if (begin_ == end_) begin_ = end_ = 0;
  return Result::kFrame;
}

}  // namespace ferry::codec
