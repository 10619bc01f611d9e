#pragma once

#include <cstdint>
#include <string>

#include "ferry/codec/frame_header.h"
#include "ferry/codec/message_codec.h"  // also declares google::protobuf::Message, wire::RpcMeta
#include "ferry/codec/status.h"

namespace ferry::codec {

// A request serialized once and sent as often as a call needs: every attempt of a retried or
// hedged call goes out with its own request id and what is left of the deadline, without
// serializing, compressing or copying the request message again.
//
// The per-attempt timeout is appended to the encoded meta as one more `timeout_us` field.
// Protobuf parsers keep the last value of a repeated scalar field, so the meta needs no
// re-encoding and the wire format is exactly that of any other request.
class EncodedRequest {
 public:
  // `meta` is encoded without its timeout_us, which each frame supplies.
  Status Encode(const wire::RpcMeta& meta, const google::protobuf::Message& body,
                const BodyOptions& options);
  // The same with a body encoded beforehand (the one client filters saw).
  Status Encode(const wire::RpcMeta& meta, const EncodedBody& body);

  // Appends one complete request frame to `out`. `timeout_us` 0 means no deadline.
  void AppendFrame(uint64_t request_id, uint64_t timeout_us, std::string* out) const;

 private:
  FrameHeader header_;  // of frame_, which has request id 0 and no timeout
  std::string frame_;
};

}  // namespace ferry::codec
