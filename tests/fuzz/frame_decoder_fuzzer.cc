// FrameDecoder on arbitrary bytes in arbitrary chunks: it must never crash, must decode exactly
// the frames docs/protocol.md's layout and the limits define, the same whatever the chunking,
// and must report a broken stream as an error that stays.
//
// Input: the byte stream, then (FuzzedDataProvider takes integers from the end) one byte of
// limits and feeding mode and one seeding the chunk sizes.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "ferry/codec/frame_decoder.h"
#include "ferry/codec/frame_header.h"
#include "fuzz_check.h"

namespace {

using ferry::codec::DecoderLimits;
using ferry::codec::Frame;
using ferry::codec::FrameDecoder;
using ferry::codec::FrameHeader;

uint32_t Read32(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

// What docs/protocol.md says the first frame of `rest` is: complete (its length in *length),
// incomplete, or a broken stream.
enum class Verdict { kFrame, kNeedMore, kError };
Verdict Expect(std::string_view rest, const DecoderLimits& limits, uint64_t* length) {
  const auto* p = reinterpret_cast<const unsigned char*>(rest.data());
  if (rest.size() >= 1 && p[0] != 0xFE)
    return rest.size() >= 2 ? Verdict::kError : Verdict::kNeedMore;
  if (rest.size() >= 2 && p[1] != 0x52) return Verdict::kError;
  if (rest.size() < ferry::codec::kHeaderSize) return Verdict::kNeedMore;
  if (p[2] != ferry::codec::kVersionMajor) return Verdict::kError;
  const uint32_t meta = Read32(p + 20);
  const uint32_t body = Read32(p + 24);
  if (meta > limits.max_meta_bytes) return Verdict::kError;
  *length = uint64_t{ferry::codec::kHeaderSize} + meta + body;
  if (*length > limits.max_frame_bytes) return Verdict::kError;
  return rest.size() >= *length ? Verdict::kFrame : Verdict::kNeedMore;
}

DecoderLimits LimitsFrom(uint8_t mode) {
  static constexpr size_t kMeta[] = {DecoderLimits{}.max_meta_bytes, 0, 16, 300};
  static constexpr size_t kFrame[] = {DecoderLimits{}.max_frame_bytes, 28, 64, 1024};
  return {.max_frame_bytes = kFrame[(mode >> 2) & 3], .max_meta_bytes = kMeta[mode & 3]};
}

// Chunk sizes: all at once, one byte at a time, or pseudo-random up to a power of two.
class Chunker {
 public:
  Chunker(uint8_t mode, uint8_t seed) : mode_(mode), state_(seed * 2654435761u + 1) {}
  size_t Next(size_t left) {
    if (mode_ == 0) return left;
    if (mode_ == 1) return 1;
    state_ ^= state_ << 13;
    state_ ^= state_ >> 17;
    state_ ^= state_ << 5;
    return std::min<size_t>(left, 1 + state_ % (size_t{1} << (mode_ * 2)));
  }

 private:
  uint8_t mode_;
  uint32_t state_;
};

void CheckFrame(const Frame& frame, std::string_view original, const DecoderLimits& limits) {
  const FrameHeader& h = frame.header;
  FERRY_FUZZ_CHECK(h.meta_length == frame.meta.size() && h.body_length == frame.body.size(),
                   "lengths %u/%u, sections %zu/%zu", h.meta_length, h.body_length,
                   frame.meta.size(), frame.body.size());
  FERRY_FUZZ_CHECK(h.version_major == ferry::codec::kVersionMajor, "major %u", h.version_major);
  FERRY_FUZZ_CHECK(frame.meta.size() <= limits.max_meta_bytes, "meta of %zu", frame.meta.size());
  FERRY_FUZZ_CHECK(h.frame_length() <= limits.max_frame_bytes, "frame of %zu", h.frame_length());
  // Written back, the frame is the bytes it came from (but for the reserved ones, ignored).
  std::string written(reinterpret_cast<const char*>(ferry::codec::WriteHeader(h).data()),
                      ferry::codec::kHeaderSize);
  written += frame.meta;
  written += frame.body;
  std::string expected(original);
  expected[10] = expected[11] = 0;
  FERRY_FUZZ_CHECK(written == expected, "frame of %zu bytes differs from its bytes",
                   written.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider input(data, size);
  const uint8_t mode = input.ConsumeIntegral<uint8_t>();
  const uint8_t seed = input.ConsumeIntegral<uint8_t>();
  const std::string stream = input.ConsumeRemainingBytesAsString();
  const DecoderLimits limits = LimitsFrom(mode);
  const bool through_prepare = (mode & 0x10) != 0;
  Chunker chunker(static_cast<uint8_t>(mode >> 5), seed);

  FrameDecoder decoder(limits);
  Frame frame;
  size_t fed = 0;
  size_t decoded = 0;  // stream bytes the frames so far came from
  bool failed = false;
  while (!failed) {
    uint64_t length = 0;
    const Verdict verdict = Expect(std::string_view(stream).substr(decoded), limits, &length);
    const auto result = decoder.Next(&frame);
    if (result == FrameDecoder::Result::kFrame) {
      FERRY_FUZZ_CHECK(verdict == Verdict::kFrame, "a frame at %zu of %zu fed", decoded, fed);
      FERRY_FUZZ_CHECK(decoded + length <= fed, "a frame of %zu bytes not yet fed",
                       static_cast<size_t>(length));
      CheckFrame(frame, std::string_view(stream).substr(decoded, length), limits);
      decoded += length;
      continue;
    }
    if (result == FrameDecoder::Result::kError) {
      FERRY_FUZZ_CHECK(verdict == Verdict::kError, "an error at %zu, where none is", decoded);
      FERRY_FUZZ_CHECK(!decoder.error().empty(), "an error without a reason");
      failed = true;
      break;
    }
    // kNeedMore: right only when what was fed does not hold the next frame's verdict.
    const Verdict on_fed =
        Expect(std::string_view(stream).substr(decoded, fed - decoded), limits, &length);
    FERRY_FUZZ_CHECK(on_fed == Verdict::kNeedMore, "needs more at %zu of %zu fed (verdict %d)",
                     decoded, fed, static_cast<int>(on_fed));
    FERRY_FUZZ_CHECK(decoder.buffered() == std::string_view(stream).substr(decoded, fed - decoded),
                     "buffers %zu bytes, %zu undecoded", decoder.buffered_bytes(), fed - decoded);
    if (fed == stream.size()) break;
    const size_t n = chunker.Next(stream.size() - fed);
    if (through_prepare) {
      const auto space = decoder.PrepareWrite(std::max<size_t>(n, seed));
      FERRY_FUZZ_CHECK(space.size() >= n, "space of %zu for %zu", space.size(), n);
      std::memcpy(space.data(), stream.data() + fed, n);
      decoder.CommitWrite(n);
    } else {
      decoder.Feed(std::string_view(stream).substr(fed, n));
    }
    fed += n;
  }
  if (failed) {
    // Failed for good: more bytes change nothing.
    const std::string reason = decoder.error();
    decoder.Feed(std::string_view(stream).substr(0, std::min<size_t>(stream.size(), 64)));
    FERRY_FUZZ_CHECK(
        decoder.Next(&frame) == FrameDecoder::Result::kError && decoder.error() == reason,
        "recovered from '%s'", reason.c_str());
  }
  return 0;
}
