#include "ferry/codec/message_codec.h"

#include <google/protobuf/message.h>

#include "ferry/codec/compressor.h"
#include "ferry/codec/serializer.h"
#include "ferry/rpc_meta.pb.h"
#include "json_body.h"

namespace ferry::codec {
namespace {

std::string& Scratch() {
  thread_local std::string scratch;
  scratch.clear();
  return scratch;
}

// Appends `body` to `out` as it travels, and says with which ids.
Status AppendBody(const google::protobuf::Message& body, const BodyOptions& options,
                  std::string* out, uint8_t* serializer_out, uint8_t* compression_out) {
  const size_t start = out->size();
  *serializer_out = options.serializer;
  *compression_out = compression_id::kNone;
  const Serializer* serializer = FindSerializer(options.serializer);
  if (serializer == nullptr) {
    return Status(StatusCode::INTERNAL,
                  "unknown serializer id " + std::to_string(options.serializer));
  }
  const Compressor* compressor = FindCompressor(options.compression);
  // The serialized size is only known afterwards, so serialize once into `out` and move it
  // aside only when it turns out to be worth compressing.
  if (!serializer->Serialize(body, out)) {
    out->resize(start);
    return Status(StatusCode::INTERNAL, "cannot serialize " + body.GetTypeName());
  }
  const size_t body_size = out->size() - start;
  if (compressor != nullptr && body_size >= options.compress_threshold) {
    std::string& raw = Scratch();
    raw.assign(out->data() + start, body_size);
    out->resize(start);
    if (compressor->Compress(raw, options.compression_level, out)) {
      *compression_out = compressor->id();
    } else {
      out->resize(start);
      out->append(raw);
    }
  }
  return Status::Ok();
}

// Room for the header, then the meta; `out` is as it was when the meta cannot be serialized.
Status AppendHeaderRoomAndMeta(const wire::RpcMeta* meta, std::string* out) {
  const size_t start = out->size();
  out->resize(start + kHeaderSize);
  if (meta != nullptr && !meta->AppendToString(out)) {
    out->resize(start);
    return Status(StatusCode::INTERNAL, "cannot serialize frame meta");
  }
  return Status::Ok();
}

// Fills in the header of the frame at `start` whose meta ends at `meta_end` and body at the end.
void WriteFrameHeader(FrameHeader header, size_t start, size_t meta_end, std::string* out) {
  header.meta_length = static_cast<uint32_t>(meta_end - start - kHeaderSize);
  header.body_length = static_cast<uint32_t>(out->size() - meta_end);
  WriteHeader(header, reinterpret_cast<uint8_t*>(out->data() + start));
}

}  // namespace

Status AppendFrame(FrameHeader header, const wire::RpcMeta* meta,
                   const google::protobuf::Message* body, const BodyOptions& options,
                   std::string* out) {
  const size_t start = out->size();
  if (Status status = AppendHeaderRoomAndMeta(meta, out); !status.ok()) return status;
  const size_t meta_end = out->size();
  header.serializer = options.serializer;
  header.compression = compression_id::kNone;
  if (body != nullptr) {
    if (Status status = AppendBody(*body, options, out, &header.serializer, &header.compression);
        !status.ok()) {
      out->resize(start);
      return status;
    }
  }
  WriteFrameHeader(header, start, meta_end, out);
  return Status::Ok();
}

Status EncodeBody(const google::protobuf::Message& body, const BodyOptions& options,
                  EncodedBody* out) {
  out->bytes.clear();
  return AppendBody(body, options, &out->bytes, &out->serializer, &out->compression);
}

Status AppendFrame(FrameHeader header, const wire::RpcMeta* meta, const EncodedBody& body,
                   std::string* out) {
  const size_t start = out->size();
  if (Status status = AppendHeaderRoomAndMeta(meta, out); !status.ok()) return status;
  const size_t meta_end = out->size();
  header.serializer = body.serializer;
  header.compression = body.compression;
  out->append(body.bytes);
  WriteFrameHeader(header, start, meta_end, out);
  return Status::Ok();
}

Status ParseBody(const FrameHeader& header, std::string_view body, size_t max_body_bytes,
                 google::protobuf::Message* out) {
  const Serializer* serializer = FindSerializer(header.serializer);
  if (serializer == nullptr) {
    return Status(StatusCode::UNIMPLEMENTED,
                  "unknown serializer id " + std::to_string(header.serializer));
  }
  std::string_view raw = body;
  if (header.compression != compression_id::kNone) {
    const Compressor* compressor = FindCompressor(header.compression);
    if (compressor == nullptr) {
      return Status(StatusCode::UNIMPLEMENTED,
                    "unknown compression id " + std::to_string(header.compression));
    }
    std::string& plain = Scratch();
    if (!compressor->Decompress(body, max_body_bytes, &plain)) {
      return Status(StatusCode::INVALID_ARGUMENT,
                    std::string("cannot decompress body with ") + std::string(compressor->name()));
    }
    raw = plain;
  }
  if (header.serializer == serializer_id::kJson) {
    // Always the built-in one (plugins cannot take Ferry's ids), which can say what is wrong.
    if (Status parsed = ParseJsonBody(raw, out); !parsed.ok()) {
      return Status(StatusCode::INVALID_ARGUMENT, "cannot parse body as " + out->GetTypeName() +
                                                      " with json: " + parsed.message());
    }
    return Status::Ok();
  }
  if (!serializer->Parse(raw, out)) {
    return Status(StatusCode::INVALID_ARGUMENT, "cannot parse body as " + out->GetTypeName() +
                                                    " with " + std::string(serializer->name()));
  }
  return Status::Ok();
}

Status ParseMeta(std::string_view meta, wire::RpcMeta* out) {
  if (!out->ParseFromArray(meta.data(), static_cast<int>(meta.size()))) {
    return Status(StatusCode::INVALID_ARGUMENT, "cannot parse frame meta");
  }
  return Status::Ok();
}

}  // namespace ferry::codec
