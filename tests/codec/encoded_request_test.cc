#include "ferry/codec/encoded_request.h"

#include <google/protobuf/wrappers.pb.h>
#include <gtest/gtest.h>

#include <string>

#include "ferry/codec/compressor.h"
#include "ferry/codec/frame_decoder.h"
#include "ferry/rpc_meta.pb.h"

namespace ferry::codec {
namespace {

using google::protobuf::StringValue;

wire::RpcMeta SampleMeta() {
  wire::RpcMeta meta;
  meta.set_service("ferry.demo.EchoService");
  meta.set_method("Echo");
  meta.set_trace_id("0123456789abcdef");
  meta.set_auth_token("v2:1700000000000:signature");
  meta.set_call_id(42);
  (*meta.mutable_attachments())["caller"] = "bench";
  return meta;
}

Frame Decode(const std::string& bytes) {
  FrameDecoder decoder;
  decoder.Feed(bytes);
  Frame frame;
  EXPECT_EQ(decoder.Next(&frame), FrameDecoder::Result::kFrame);
  EXPECT_EQ(decoder.buffered_bytes(), 0u);
  return frame;
}

TEST(EncodedRequestTest, EachFrameCarriesItsOwnIdAndTimeout) {
  StringValue body;
  body.set_value("payload");
  EncodedRequest request;
  ASSERT_TRUE(request.Encode(SampleMeta(), body, BodyOptions{}).ok());

  std::string bytes;
  request.AppendFrame(7, 250000, &bytes);
  request.AppendFrame(8, 90, &bytes);
  FrameDecoder decoder;
  decoder.Feed(bytes);
  for (const auto& [id, timeout_us] : {std::pair<uint64_t, uint64_t>{7, 250000}, {8, 90}}) {
    Frame frame;
    ASSERT_EQ(decoder.Next(&frame), FrameDecoder::Result::kFrame);
    EXPECT_EQ(frame.header.type, MessageType::kRequest);
    EXPECT_EQ(frame.header.request_id, id);
    wire::RpcMeta meta;
    ASSERT_TRUE(ParseMeta(frame.meta, &meta).ok());
    wire::RpcMeta expected = SampleMeta();
    expected.set_timeout_us(timeout_us);
    EXPECT_EQ(meta.SerializeAsString(), expected.SerializeAsString());
    StringValue parsed;
    ASSERT_TRUE(ParseBody(frame.header, frame.body, 1 << 20, &parsed).ok());
    EXPECT_EQ(parsed.value(), "payload");
  }
}

// An attempt's remaining budget replaces whatever timeout the meta had, including none.
TEST(EncodedRequestTest, MetaTimeoutIsReplacedByTheFrames) {
  wire::RpcMeta meta = SampleMeta();
  meta.set_timeout_us(5000000);
  StringValue body;
  EncodedRequest request;
  ASSERT_TRUE(request.Encode(meta, body, BodyOptions{}).ok());

  std::string with_budget;
  request.AppendFrame(1, 1234, &with_budget);
  wire::RpcMeta parsed;
  ASSERT_TRUE(ParseMeta(Decode(with_budget).meta, &parsed).ok());
  EXPECT_EQ(parsed.timeout_us(), 1234u);

  std::string unbounded;
  request.AppendFrame(2, 0, &unbounded);
  ASSERT_TRUE(ParseMeta(Decode(unbounded).meta, &parsed).ok());
  EXPECT_EQ(parsed.timeout_us(), 0u);
  EXPECT_EQ(parsed.service(), "ferry.demo.EchoService");
}

// Same bytes as encoding the whole frame directly, so servers cannot tell the difference.
TEST(EncodedRequestTest, MatchesDirectEncoding) {
  wire::RpcMeta meta = SampleMeta();
  StringValue body;
  body.set_value("hello");
  EncodedRequest request;
  ASSERT_TRUE(request.Encode(meta, body, BodyOptions{}).ok());
  std::string resent;
  request.AppendFrame(99, 0, &resent);

  FrameHeader header;
  header.request_id = 99;
  std::string direct;
  ASSERT_TRUE(AppendFrame(header, &meta, &body, BodyOptions{}, &direct).ok());
  EXPECT_EQ(resent, direct);
}

TEST(EncodedRequestTest, CompressedBodyIsKeptCompressed) {
  BodyOptions options;
  options.compression = compression_id::kZstd;
  options.compress_threshold = 64;
  StringValue body;
  body.set_value(std::string(64 * 1024, 'z'));
  EncodedRequest request;
  ASSERT_TRUE(request.Encode(SampleMeta(), body, options).ok());
  std::string bytes;
  request.AppendFrame(3, 10, &bytes);
  EXPECT_LT(bytes.size(), 4096u);
  const Frame frame = Decode(bytes);
  EXPECT_EQ(frame.header.compression, compression_id::kZstd);
  StringValue parsed;
  ASSERT_TRUE(ParseBody(frame.header, frame.body, 1 << 20, &parsed).ok());
  EXPECT_EQ(parsed.value(), body.value());
}

// A body encoded beforehand (what client filters see) makes the very frame the message would,
// compressed or not, directly or through an EncodedRequest.
TEST(EncodedRequestTest, ABodyEncodedBeforehandMakesTheSameFrames) {
  BodyOptions compressed;
  compressed.compression = compression_id::kZstd;
  compressed.compress_threshold = 64;
  for (const BodyOptions& options : {BodyOptions{}, compressed}) {
    StringValue body;
    body.set_value(std::string(4096, 'z'));
    EncodedBody encoded;
    ASSERT_TRUE(EncodeBody(body, options, &encoded).ok());
    EXPECT_EQ(encoded.compression, options.compression);

    const wire::RpcMeta meta = SampleMeta();
    FrameHeader header;
    header.request_id = 7;
    std::string from_message;
    std::string from_encoded;
    ASSERT_TRUE(AppendFrame(header, &meta, &body, options, &from_message).ok());
    ASSERT_TRUE(AppendFrame(header, &meta, encoded, &from_encoded).ok());
    EXPECT_EQ(from_encoded, from_message);
    EXPECT_EQ(Decode(from_encoded).body, encoded.bytes);

    EncodedRequest request;
    ASSERT_TRUE(request.Encode(meta, encoded).ok());
    std::string resent;
    request.AppendFrame(7, 0, &resent);
    EXPECT_EQ(resent, from_message);
  }
}

}  // namespace
}  // namespace ferry::codec
