#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ferry::codec {

// Byte layout and versioning rules: docs/protocol.md.
inline constexpr uint16_t kMagic = 0xFE52;
inline constexpr uint8_t kVersionMajor = 1;
// 1.1: auth token indexing (still resolved by servers, no longer sent by clients);
// 1.2: GOAWAY, so that a draining server's clients stop sending before it closes.
inline constexpr uint8_t kVersionMinor = 2;
inline constexpr size_t kHeaderSize = 28;
// Longest auth token a connection indexes (protocol 1.1): longer ones travel whole in every
// request, so that no peer can make a server hold more than 16 × this per connection.
inline constexpr size_t kMaxIndexedAuthTokenBytes = 4096;

enum class MessageType : uint8_t {
  kRequest = 0,
  kResponse = 1,
  kHeartbeat = 2,
  kCancel = 3,
  // Server to client: no new requests on this connection (the server is draining). The client
  // answers with kGoAway | kGoAwayAck after the last request it sent, and sends none after.
  kGoAway = 4,
};

namespace flags {
inline constexpr uint8_t kOneWay = 0x01;          // request expects no response
inline constexpr uint8_t kHeartbeatReply = 0x02;  // heartbeat answering a peer's heartbeat
inline constexpr uint8_t kGoAwayAck = 0x02;       // goaway answering the server's goaway
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

// Reads a header without validating it; callers check magic and limits (see FrameDecoder).
// Returns false only when the magic is wrong.
bool ReadHeader(const uint8_t* in, FrameHeader* header);

std::string_view MessageTypeName(MessageType type);

}  // namespace ferry::codec
