#include "ferry/codec/frame_header.h"

namespace ferry::codec {
namespace {

void Put16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v >> 8);
  p[1] = static_cast<uint8_t>(v);
}
void Put32(uint8_t* p, uint32_t v) {
  for (int i = 3; i >= 0; --i, v >>= 8) p[i] = static_cast<uint8_t>(v);
}
void Put64(uint8_t* p, uint64_t v) {
  for (int i = 7; i >= 0; --i, v >>= 8) p[i] = static_cast<uint8_t>(v);
}
uint16_t Get16(const uint8_t* p) { return static_cast<uint16_t>((p[0] << 8) | p[1]); }
uint32_t Get32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v = (v << 8) | p[i];
  return v;
}
uint64_t Get64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

void WriteHeader(const FrameHeader& h, uint8_t* out) {
  Put16(out + 0, kMagic);
  out[2] = h.version_major;
  out[3] = h.version_minor;
  out[4] = static_cast<uint8_t>(h.type);
  out[5] = h.serializer;
  out[6] = h.compression;
  out[7] = h.flags;
  Put16(out + 8, h.status);
  Put16(out + 10, 0);  // reserved
  Put64(out + 12, h.request_id);
  Put32(out + 20, h.meta_length);
  Put32(out + 24, h.body_length);
}

std::array<uint8_t, kHeaderSize> WriteHeader(const FrameHeader& header) {
  std::array<uint8_t, kHeaderSize> bytes{};
  WriteHeader(header, bytes.data());
  return bytes;
}

bool ReadHeader(const uint8_t* in, FrameHeader* h) {
  if (Get16(in) != kMagic) return false;
  h->version_major = in[2];
  h->version_minor = in[3];
  h->type = static_cast<MessageType>(in[4]);
  h->serializer = in[5];
  h->compression = in[6];
  h->flags = in[7];
  h->status = Get16(in + 8);
  h->request_id = Get64(in + 12);
  h->meta_length = Get32(in + 20);
  h->body_length = Get32(in + 24);
  return true;
}

std::string_view MessageTypeName(MessageType type) {
  switch (type) {
    case MessageType::kRequest:
      return "request";
    case MessageType::kResponse:
      return "response";
    case MessageType::kHeartbeat:
      return "heartbeat";
    case MessageType::kCancel:
      return "cancel";
    case MessageType::kGoAway:
      return "goaway";
  }
  return "unknown";
}

}  // namespace ferry::codec
