#include "ferry/codec/frame_header.h"

#include <gtest/gtest.h>

#include <vector>

namespace ferry::codec {
namespace {

// Golden bytes: if this changes, the wire format changed and docs/protocol.md must say so.
TEST(FrameHeaderTest, EncodesGoldenBytes) {
  FrameHeader h;
  h.type = MessageType::kResponse;
  h.serializer = 1;
  h.compression = 1;
  h.flags = flags::kOneWay;
  h.status = 14;
  h.request_id = 0x0102030405060708ULL;
  h.meta_length = 0x0A0B;
  h.body_length = 0x01020304;
  const std::vector<uint8_t> expected = {
      0xFE, 0x52,                                      // magic
      0x01, 0x02,                                      // version 1.2
      0x01,                                            // response
      0x01, 0x01, 0x01,                                // json, zstd, one-way
      0x00, 0x0E,                                      // status 14 (UNAVAILABLE)
      0x00, 0x00,                                      // reserved
      0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,  // request id
      0x00, 0x00, 0x0A, 0x0B,                          // meta length
      0x01, 0x02, 0x03, 0x04,                          // body length
  };
  const auto bytes = WriteHeader(h);
  EXPECT_EQ(std::vector<uint8_t>(bytes.begin(), bytes.end()), expected);
}

TEST(FrameHeaderTest, ReadsWhatItWrites) {
  FrameHeader h;
  h.type = MessageType::kCancel;
  h.request_id = ~0ULL;
  h.meta_length = 7;
  h.body_length = 0xFFFFFFFFu;
  h.status = 0xFFFF;
  const auto bytes = WriteHeader(h);
  FrameHeader back;
  ASSERT_TRUE(ReadHeader(bytes.data(), &back));
  EXPECT_EQ(back.type, MessageType::kCancel);
  EXPECT_EQ(back.request_id, ~0ULL);
  EXPECT_EQ(back.meta_length, 7u);
  EXPECT_EQ(back.body_length, 0xFFFFFFFFu);
  EXPECT_EQ(back.status, 0xFFFF);
}

TEST(FrameHeaderTest, RejectsBadMagic) {
  auto bytes = WriteHeader(FrameHeader{});
  bytes[1] = 0x53;
  FrameHeader h;
  EXPECT_FALSE(ReadHeader(bytes.data(), &h));
}

}  // namespace
}  // namespace ferry::codec
