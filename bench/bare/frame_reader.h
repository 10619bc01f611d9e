#pragma once

#include <boost/asio/buffer.hpp>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace ferry::bench {

// The bare protocol: a 4-byte big-endian payload length, then the payload.
inline constexpr size_t kLengthPrefixBytes = 4;
inline constexpr uint32_t kMaxBarePayload = 64u << 20;

inline void PutLengthPrefix(uint32_t length, char* out) {
  out[0] = static_cast<char>(length >> 24);
  out[1] = static_cast<char>(length >> 16);
  out[2] = static_cast<char>(length >> 8);
  out[3] = static_cast<char>(length);
}

// Receive buffer of one connection. Each read lands after the unparsed tail, so one read can
// carry many frames, and the buffer is reused for the connection's whole life.
class FrameReader {
 public:
  explicit FrameReader(size_t initial_bytes = 64 * 1024) : buffer_(initial_bytes) {}

  // Where the next read goes. Moves the unparsed tail (at most one partial frame) to the front
  // when the free space runs short, and grows the buffer for a frame larger than it. Call
  // oversized() first: the announced length is trusted here.
  boost::asio::mutable_buffer Prepare() {
    const size_t unread = end_ - begin_;
    const size_t needed =
        unread >= kLengthPrefixBytes ? kLengthPrefixBytes + PayloadLength(begin_) : 0;
    if (unread == 0) {
      begin_ = end_ = 0;
    } else if (buffer_.size() - end_ < kMinRead || buffer_.size() - begin_ < needed) {
      std::memmove(buffer_.data(), buffer_.data() + begin_, unread);
      begin_ = 0;
      end_ = unread;
    }
    if (buffer_.size() < needed) buffer_.resize(needed);
    return boost::asio::buffer(buffer_.data() + end_, buffer_.size() - end_);
  }
  void Commit(size_t n) { end_ += n; }

  // Takes the next complete frame, prefix included; empty when only part of one is buffered.
  std::string_view NextFrame() {
    const size_t unread = end_ - begin_;
    if (unread < kLengthPrefixBytes) return {};
    const size_t frame = kLengthPrefixBytes + PayloadLength(begin_);
    if (unread < frame) return {};
    const std::string_view out(buffer_.data() + begin_, frame);
    begin_ += frame;
    return out;
  }

  // True once a peer announced a payload over kMaxBarePayload; the connection must close.
  bool oversized() const {
    return end_ - begin_ >= kLengthPrefixBytes && PayloadLength(begin_) > kMaxBarePayload;
  }

 private:
  uint32_t PayloadLength(size_t at) const {
    const auto* p = reinterpret_cast<const unsigned char*>(buffer_.data() + at);
    return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | uint32_t{p[3]};
  }

  static constexpr size_t kMinRead = 4096;

  std::vector<char> buffer_;
  size_t begin_ = 0;  // first unparsed byte
  size_t end_ = 0;    // one past the last received byte
};

}  // namespace ferry::bench
