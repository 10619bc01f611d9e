#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ferry/codec/frame_header.h"
#include "ferry/codec/status.h"

namespace google::protobuf {
class Message;
}
namespace ferry::wire {
class RpcMeta;
}

namespace ferry::codec {

// How bodies are written by one client or service.
struct BodyOptions {
  uint8_t serializer = 0;   // serializer_id
  uint8_t compression = 0;  // compression_id; applied only at or above the threshold
  size_t compress_threshold = 4096;
  int compression_level = 1;
};

// A message serialized and maybe compressed once, as its bytes travel: client filters see a
// request's (ClientCall::body), and every attempt of the call sends them.
struct EncodedBody {
  uint8_t serializer = 0;   // serializer_id
  uint8_t compression = 0;  // compression_id; kNone below the threshold
  std::string bytes;
};

// Serializes `body` with `options` into `*out`, compressed at or above the threshold; reuses
// out's capacity.
Status EncodeBody(const google::protobuf::Message& body, const BodyOptions& options,
                  EncodedBody* out);

// Appends one complete frame (header, meta, body) to `out`, filling in serializer, compression
// and both lengths of `header`. `meta` and `body` may be null for empty sections. Writes straight
// into `out` when no compression applies, so the common path copies nothing.
Status AppendFrame(FrameHeader header, const wire::RpcMeta* meta,
                   const google::protobuf::Message* body, const BodyOptions& options,
                   std::string* out);

// The same with a body encoded beforehand, whose ids the header takes.
Status AppendFrame(FrameHeader header, const wire::RpcMeta* meta, const EncodedBody& body,
                   std::string* out);

// Parses a received body with whatever serializer and compression its header names.
// `max_body_bytes` bounds decompression.
Status ParseBody(const FrameHeader& header, std::string_view body, size_t max_body_bytes,
                 google::protobuf::Message* out);

Status ParseMeta(std::string_view meta, wire::RpcMeta* out);

}  // namespace ferry::codec
