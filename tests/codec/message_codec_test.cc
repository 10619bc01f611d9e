#include "ferry/codec/message_codec.h"

#include <google/protobuf/wrappers.pb.h>
#include <gtest/gtest.h>

#include "ferry/codec/compressor.h"
#include "ferry/codec/frame_decoder.h"
#include "ferry/codec/serializer.h"
#include "ferry/rpc_meta.pb.h"

namespace ferry::codec {
namespace {

using google::protobuf::StringValue;

Frame EncodeAndDecode(const wire::RpcMeta& meta, const StringValue& body,
                      const BodyOptions& options) {
  std::string bytes;
  FrameHeader h;
  h.request_id = 7;
  EXPECT_TRUE(AppendFrame(h, &meta, &body, options, &bytes).ok());
  FrameDecoder decoder;
  decoder.Feed(bytes);
  Frame frame;
  EXPECT_EQ(decoder.Next(&frame), FrameDecoder::Result::kFrame);
  return frame;
}

// Golden vector for a whole request frame: header, protobuf meta, protobuf body.
TEST(MessageCodecTest, RequestGoldenBytes) {
  wire::RpcMeta meta;
  meta.set_service("S");
  meta.set_method("M");
  StringValue body;
  body.set_value("hi");
  std::string bytes;
  FrameHeader h;
  h.request_id = 1;
  ASSERT_TRUE(AppendFrame(h, &meta, &body, BodyOptions{}, &bytes).ok());
  const std::string expected(
      "\xFE\x52\x01\x02\x00\x00\x00\x00\x00\x00\x00\x00"
      "\x00\x00\x00\x00\x00\x00\x00\x01"
      "\x00\x00\x00\x06\x00\x00\x00\x04"
      "\x0A\x01S\x12\x01M"  // RpcMeta{service: "S", method: "M"}
      "\x0A\x02hi",         // StringValue{value: "hi"}
      38);
  EXPECT_EQ(bytes, expected);
}

TEST(MessageCodecTest, ProtobufRoundTrip) {
  wire::RpcMeta meta;
  meta.set_service("ferry.demo.EchoService");
  meta.set_method("Echo");
  meta.set_timeout_us(250000);
  (*meta.mutable_attachments())["k"] = "v";
  StringValue body;
  body.set_value("payload");
  Frame frame = EncodeAndDecode(meta, body, BodyOptions{});
  EXPECT_EQ(frame.header.serializer, serializer_id::kProtobuf);
  EXPECT_EQ(frame.header.compression, compression_id::kNone);
  wire::RpcMeta meta_back;
  ASSERT_TRUE(ParseMeta(frame.meta, &meta_back).ok());
  EXPECT_EQ(meta_back.method(), "Echo");
  EXPECT_EQ(meta_back.timeout_us(), 250000u);
  EXPECT_EQ(meta_back.attachments().at("k"), "v");
  StringValue back;
  ASSERT_TRUE(ParseBody(frame.header, frame.body, 1 << 20, &back).ok());
  EXPECT_EQ(back.value(), "payload");
}

TEST(MessageCodecTest, JsonBodyIsReadableAndRoundTrips) {
  StringValue body;
  body.set_value("héllo");
  Frame frame = EncodeAndDecode({}, body, BodyOptions{.serializer = serializer_id::kJson});
  EXPECT_EQ(frame.header.serializer, serializer_id::kJson);
  EXPECT_EQ(frame.body, "\"héllo\"");
  StringValue back;
  ASSERT_TRUE(ParseBody(frame.header, frame.body, 1 << 20, &back).ok());
  EXPECT_EQ(back.value(), "héllo");
}

TEST(MessageCodecTest, ZstdAppliesOnlyFromTheThreshold) {
  const BodyOptions zstd{.compression = compression_id::kZstd, .compress_threshold = 1024};
  StringValue small;
  small.set_value(std::string(100, 'a'));
  EXPECT_EQ(EncodeAndDecode({}, small, zstd).header.compression, compression_id::kNone);

  StringValue large;
  large.set_value(std::string(100000, 'a'));
  Frame frame = EncodeAndDecode({}, large, zstd);
  EXPECT_EQ(frame.header.compression, compression_id::kZstd);
  EXPECT_LT(frame.body.size(), 1000u);
  StringValue back;
  ASSERT_TRUE(ParseBody(frame.header, frame.body, 1 << 20, &back).ok());
  EXPECT_EQ(back.value(), large.value());
}

TEST(MessageCodecTest, DecompressionIsBoundedAgainstBombs) {
  StringValue large;
  large.set_value(std::string(1 << 20, 'a'));
  Frame frame = EncodeAndDecode({}, large, BodyOptions{.compression = compression_id::kZstd});
  ASSERT_LT(frame.body.size(), 1000u);
  StringValue back;
  Status s = ParseBody(frame.header, frame.body, 64 * 1024, &back);
  EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT) << s;
}

TEST(MessageCodecTest, CorruptCompressedBodyIsAnError) {
  FrameHeader h;
  h.compression = compression_id::kZstd;
  StringValue back;
  EXPECT_EQ(ParseBody(h, "definitely not zstd", 1 << 20, &back).code(),
            StatusCode::INVALID_ARGUMENT);
}

TEST(MessageCodecTest, UnknownIdsAreUnimplemented) {
  StringValue back;
  FrameHeader h;
  h.serializer = 99;
  EXPECT_EQ(ParseBody(h, "", 1 << 20, &back).code(), StatusCode::UNIMPLEMENTED);
  h.serializer = serializer_id::kProtobuf;
  h.compression = 77;
  EXPECT_EQ(ParseBody(h, "", 1 << 20, &back).code(), StatusCode::UNIMPLEMENTED);
}

TEST(MessageCodecTest, UndecodableBodyIsInvalidArgument) {
  FrameHeader h;
  StringValue back;
  Status s = ParseBody(h, std::string("\xFF\xFF\xFF", 3), 1 << 20, &back);
  EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.message().find("google.protobuf.StringValue"), std::string::npos) << s;
}

TEST(MessageCodecTest, AppendsAfterExistingBytes) {
  std::string bytes = "previous";
  StringValue body;
  body.set_value("x");
  ASSERT_TRUE(AppendFrame(FrameHeader{}, nullptr, &body, BodyOptions{}, &bytes).ok());
  ASSERT_EQ(bytes.substr(0, 8), "previous");
  FrameDecoder decoder;
  decoder.Feed(std::string_view(bytes).substr(8));
  Frame frame;
  ASSERT_EQ(decoder.Next(&frame), FrameDecoder::Result::kFrame);
  EXPECT_EQ(frame.header.meta_length, 0u);
}

}  // namespace
}  // namespace ferry::codec
