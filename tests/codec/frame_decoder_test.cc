#include "ferry/codec/frame_decoder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace ferry::codec {
namespace {

std::string MakeFrame(uint64_t id, const std::string& meta, const std::string& body,
                      uint8_t major = kVersionMajor, uint8_t minor = kVersionMinor) {
  FrameHeader h;
  h.version_major = major;
  h.version_minor = minor;
  h.request_id = id;
  h.meta_length = static_cast<uint32_t>(meta.size());
  h.body_length = static_cast<uint32_t>(body.size());
  const auto header = WriteHeader(h);
  return std::string(header.begin(), header.end()) + meta + body;
}

TEST(FrameDecoderTest, DecodesGoldenFrame) {
  const std::string golden(
      "\xFE\x52\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00"
      "\x00\x00\x00\x00\x00\x00\x00\x2A"
      "\x00\x00\x00\x02\x00\x00\x00\x03"
      "MEbod",
      33);
  FrameDecoder decoder;
  decoder.Feed(golden);
  Frame frame;
  ASSERT_EQ(decoder.Next(&frame), FrameDecoder::Result::kFrame);
  EXPECT_EQ(frame.header.request_id, 42u);
  EXPECT_EQ(frame.header.type, MessageType::kRequest);
  EXPECT_EQ(frame.meta, "ME");
  EXPECT_EQ(frame.body, "bod");
  EXPECT_EQ(decoder.Next(&frame), FrameDecoder::Result::kNeedMore);
  EXPECT_EQ(decoder.buffered_bytes(), 0u);
}

TEST(FrameDecoderTest, AnySegmentationYieldsTheSameFrames) {
  std::mt19937_64 rng(20261130);
  std::vector<std::string> metas, bodies;
  std::string stream;
  constexpr int kFrames = 2000;
  for (int i = 0; i < kFrames; ++i) {
    std::string meta(rng() % 40, static_cast<char>('a' + i % 26));
    // Mostly small bodies, some large enough to span several reads.
    std::string body(rng() % 8 == 0 ? rng() % 70000 : rng() % 64, static_cast<char>(i));
    stream += MakeFrame(static_cast<uint64_t>(i), meta, body);
    metas.push_back(std::move(meta));
    bodies.push_back(std::move(body));
  }
  for (int round = 0; round < 5; ++round) {
    FrameDecoder decoder;
    Frame frame;
    int next = 0;
    size_t pos = 0;
    while (pos < stream.size()) {
      // Chunks from 1 byte to many frames at once.
      const size_t max_chunk = round == 0 ? 1 : (round == 1 ? 7 : 1u << (8 + round * 2));
      const size_t n = std::min(stream.size() - pos, 1 + rng() % max_chunk);
      auto space = decoder.PrepareWrite(n);
      std::memcpy(space.data(), stream.data() + pos, n);
      decoder.CommitWrite(n);
      pos += n;
      FrameDecoder::Result r;
      while ((r = decoder.Next(&frame)) == FrameDecoder::Result::kFrame) {
        ASSERT_LT(next, kFrames);
        ASSERT_EQ(frame.header.request_id, static_cast<uint64_t>(next));
        ASSERT_EQ(frame.meta, metas[next]);
        ASSERT_EQ(frame.body, bodies[next]);
        ++next;
      }
      ASSERT_EQ(r, FrameDecoder::Result::kNeedMore) << decoder.error();
    }
    EXPECT_EQ(next, kFrames) << "round " << round;
    EXPECT_EQ(decoder.buffered_bytes(), 0u);
  }
}

TEST(FrameDecoderTest, BadMagicFailsAfterTwoBytes) {
  FrameDecoder decoder;
  decoder.Feed("GE");  // e.g. an HTTP client talking to the wrong port
  Frame frame;
  EXPECT_EQ(decoder.Next(&frame), FrameDecoder::Result::kError);
  EXPECT_EQ(decoder.error(), "bad magic");
  decoder.Feed(MakeFrame(1, "", ""));
  EXPECT_EQ(decoder.Next(&frame), FrameDecoder::Result::kError) << "a failed decoder stays failed";
}

TEST(FrameDecoderTest, RejectsUnsupportedMajorVersion) {
  FrameDecoder decoder;
  decoder.Feed(MakeFrame(1, "", "", kVersionMajor + 1));
  Frame frame;
  EXPECT_EQ(decoder.Next(&frame), FrameDecoder::Result::kError);
  EXPECT_NE(decoder.error().find("major version 2"), std::string::npos) << decoder.error();
}

TEST(FrameDecoderTest, AcceptsNewerMinorVersion) {
  FrameDecoder decoder;
  decoder.Feed(MakeFrame(9, "m", "b", kVersionMajor, kVersionMinor + 3));
  Frame frame;
  ASSERT_EQ(decoder.Next(&frame), FrameDecoder::Result::kFrame);
  EXPECT_EQ(frame.header.version_minor, kVersionMinor + 3);
}

TEST(FrameDecoderTest, OversizeClaimFailsWithoutAllocating) {
  FrameDecoder decoder(DecoderLimits{.max_frame_bytes = 1 << 20, .max_meta_bytes = 1024});
  FrameHeader h;
  h.body_length = 0xFFFFFFF0u;  // claims ~4 GiB
  const auto header = WriteHeader(h);
  decoder.Feed(std::string(header.begin(), header.end()));
  Frame frame;
  EXPECT_EQ(decoder.Next(&frame), FrameDecoder::Result::kError);
  EXPECT_NE(decoder.error().find("exceeds limit 1048576"), std::string::npos) << decoder.error();
  EXPECT_LT(decoder.PrepareWrite(1).size() + decoder.buffered_bytes(), size_t{1} << 20);
}

TEST(FrameDecoderTest, OversizeMetaFails) {
  FrameDecoder decoder(DecoderLimits{.max_frame_bytes = 1 << 20, .max_meta_bytes = 16});
  decoder.Feed(MakeFrame(1, std::string(17, 'm'), ""));
  Frame frame;
  EXPECT_EQ(decoder.Next(&frame), FrameDecoder::Result::kError);
  EXPECT_NE(decoder.error().find("meta length 17"), std::string::npos);
}

TEST(FrameDecoderTest, TruncatedFrameWaitsForMore) {
  const std::string whole = MakeFrame(5, "meta", std::string(1000, 'x'));
  FrameDecoder decoder;
  decoder.Feed(whole.substr(0, whole.size() - 1));
  Frame frame;
  EXPECT_EQ(decoder.Next(&frame), FrameDecoder::Result::kNeedMore);
  decoder.Feed(whole.substr(whole.size() - 1));
  EXPECT_EQ(decoder.Next(&frame), FrameDecoder::Result::kFrame);
  EXPECT_EQ(frame.body.size(), 1000u);
}

// Reads as a connection does: PrepareWrite's default, then commits what "arrived".
void Receive(FrameDecoder& decoder, std::string_view bytes) {
  while (!bytes.empty()) {
    const std::span<uint8_t> space = decoder.PrepareWrite();
    const size_t n = std::min(space.size(), bytes.size());
    std::memcpy(space.data(), bytes.data(), n);
    decoder.CommitWrite(n);
    bytes.remove_prefix(n);
  }
}

TEST(FrameDecoderTest, AClaimedLengthIsNotAllocatedBeforeItsBytesArrive) {
  // A header announcing a frame just under the limit, then a trickle of its body.
  constexpr uint32_t kClaimed = (16u << 20) - kHeaderSize - 1;
  const std::string whole = MakeFrame(1, "", std::string(kClaimed, 'x'));
  FrameDecoder decoder;
  Frame frame;
  size_t received = 0;
  for (const size_t step : {size_t{kHeaderSize}, size_t{100}, size_t{5000}, size_t{70000}}) {
    Receive(decoder, std::string_view(whole).substr(received, step));
    received += step;
    ASSERT_EQ(decoder.Next(&frame), FrameDecoder::Result::kNeedMore);
    // At most twice what arrived, or one read's worth.
    EXPECT_LE(decoder.capacity(), std::max<size_t>(2 * received, 16 * 1024) + 16 * 1024)
        << "after " << received << " bytes";
  }
  Receive(decoder, std::string_view(whole).substr(received));
  ASSERT_EQ(decoder.Next(&frame), FrameDecoder::Result::kFrame);
  EXPECT_EQ(frame.body.size(), kClaimed);
}

TEST(FrameDecoderTest, GivesALargeBufferBackOnceItsFrameIsDecoded) {
  FrameDecoder decoder;
  Frame frame;
  Receive(decoder, MakeFrame(1, "", std::string(1 << 20, 'x')));
  EXPECT_GE(decoder.capacity(), 1u << 20);
  ASSERT_EQ(decoder.Next(&frame), FrameDecoder::Result::kFrame);
  EXPECT_LE(decoder.capacity(), kRetainedBufferBytes);
  // Small frames keep their buffer: no allocation per frame.
  Receive(decoder, MakeFrame(2, "m", "b"));
  const size_t small = decoder.capacity();
  ASSERT_EQ(decoder.Next(&frame), FrameDecoder::Result::kFrame);
  EXPECT_EQ(decoder.capacity(), small);
  EXPECT_GT(small, 0u);
}

}  // namespace
}  // namespace ferry::codec
