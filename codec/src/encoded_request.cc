#include "ferry/codec/encoded_request.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <array>

#include "ferry/rpc_meta.pb.h"

namespace ferry::codec {

namespace {

// `meta` without its timeout_us, which each frame supplies.
const wire::RpcMeta& Untimed(const wire::RpcMeta& meta) {
  if (meta.timeout_us() == 0) return meta;
  thread_local wire::RpcMeta untimed;
  untimed = meta;
  untimed.clear_timeout_us();
  return untimed;
}

}  // namespace

Status EncodedRequest::Encode(const wire::RpcMeta& meta, const google::protobuf::Message& body,
                              const BodyOptions& options) {
  frame_.clear();
  FrameHeader header;
  header.type = MessageType::kRequest;
  if (Status status = codec::AppendFrame(header, &Untimed(meta), &body, options, &frame_);
      !status.ok()) {
    return status;
  }
  ReadHeader(reinterpret_cast<const uint8_t*>(frame_.data()), &header_);
  return Status::Ok();
}

Status EncodedRequest::Encode(const wire::RpcMeta& meta, const EncodedBody& body) {
  frame_.clear();
  FrameHeader header;
  header.type = MessageType::kRequest;
  if (Status status = codec::AppendFrame(header, &Untimed(meta), body, &frame_); !status.ok()) {
    return status;
  }
  ReadHeader(reinterpret_cast<const uint8_t*>(frame_.data()), &header_);
  return Status::Ok();
}

void EncodedRequest::AppendFrame(uint64_t request_id, uint64_t timeout_us, std::string* out) const {
  using google::protobuf::internal::WireFormatLite;
  using Coded = google::protobuf::io::CodedOutputStream;
  // Tag and a varint of at most 10 bytes.
  std::array<uint8_t, 16> timeout_field;
  uint8_t* timeout_end = timeout_field.data();
  if (timeout_us != 0) {
    timeout_end =
        Coded::WriteTagToArray(WireFormatLite::MakeTag(wire::RpcMeta::kTimeoutUsFieldNumber,
                                                       WireFormatLite::WIRETYPE_VARINT),
                               timeout_end);
    timeout_end = Coded::WriteVarint64ToArray(timeout_us, timeout_end);
  }
  const auto timeout_size = static_cast<uint32_t>(timeout_end - timeout_field.data());

  FrameHeader header = header_;
  header.request_id = request_id;
  header.meta_length += timeout_size;
  const size_t start = out->size();
  out->resize(start + kHeaderSize);
  WriteHeader(header, reinterpret_cast<uint8_t*>(out->data() + start));
  const char* meta = frame_.data() + kHeaderSize;
  out->append(meta, header_.meta_length);
  out->append(reinterpret_cast<const char*>(timeout_field.data()), timeout_size);
  out->append(meta + header_.meta_length, header_.body_length);
}

}  // namespace ferry::codec
