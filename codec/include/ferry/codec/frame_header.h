#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ferry::codec {

// Byte layout and versioning rules: docs/protocol.md.
inline constexpr uint16_t kMagic = 0xFE52;
inline constexpr uint8_t kVersionMajor = 1;
inline constexpr uint8_t kVersionMinor = 1;  // 1.1: auth token indexing
inline constexpr size_t kHeaderSize = 28;
// Longest auth token a connection indexes (protocol 1.1): longer ones travel whole in every
// request, so that no peer can make a server hold more than 16 × this per connection.
inline constexpr size_t kMaxIndexedAuthTokenBytes = 4096;

enum class MessageType : uint8_t {
  kRequest = 0,
  kResponse = 1,
  kHeartbeat = 2,
  kCancel = 3,
};

namespace flags {
inline constexpr uint8_t kOneWay = 0x01;          // request expects no response
inline constexpr uint8_t kHeartbeatReply = 0x02;  // heartbeat answering a peer's heartbeat
}  // namespace flags

struct FrameHeader {
  uint8_t version_major = kVersionMajor;
  uint8_t version_minor = kVersionMinor;
  MessageType type = MessageType::kRequest;
  uint8_t serializer = 0;
  uint8_t compression = 0;
  uint8_t flags = 0;
  uint16_t status = 0;
  uint64_t request_id = 0;
  uint32_t meta_length = 0;
  uint32_t body_length = 0;

  size_t frame_length() const { return kHeaderSize + meta_length + body_length; }
};

// Writes the 28-byte header in network byte order.
void WriteHeader(const FrameHeader& header, uint8_t* out);
std::array<uint8_t, kHeaderSize> WriteHeader(const FrameHeader& header);

// Adds `change` (maybe negative) to the meta_length of a header written at `header`: for a
// sender that puts other meta fields between the header and the meta it serialized (protobuf
// merges the two).
inline void ChangeMetaLength(uint8_t* header, int32_t change) {
  uint8_t* p = header + 20;
  const uint32_t length =
      (uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3]) +
      static_cast<uint32_t>(change);
  p[0] = static_cast<uint8_t>(length >> 24);
  p[1] = static_cast<uint8_t>(length >> 16);
  p[2] = static_cast<uint8_t>(length >> 8);
  p[3] = static_cast<uint8_t>(length);
}

// Reads a header without validating it; callers check magic and limits (see FrameDecoder).
// Returns false only when the magic is wrong.
bool ReadHeader(const uint8_t* in, FrameHeader* header);

std::string_view MessageTypeName(MessageType type);

}  // namespace ferry::codec
