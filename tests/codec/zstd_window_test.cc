#include <gtest/gtest.h>
#include <zstd.h>

#include <memory>
#include <string>

#include "ferry/codec/compressor.h"

namespace ferry::codec {
namespace {

// A zstd frame of `content` that declares no content size and a window of 2^window_log bytes,
// as a streaming sender may write it: a decoder must allocate that window to read it.
std::string FrameWithWindow(const std::string& content, int window_log) {
  std::unique_ptr<ZSTD_CCtx, decltype(&ZSTD_freeCCtx)> cctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_windowLog, window_log);
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_contentSizeFlag, 0);
  std::string out(ZSTD_compressBound(content.size()) + 64, '\0');
  ZSTD_outBuffer ob{out.data(), out.size(), 0};
  // In two pieces: given all at once, zstd would shrink the window to the input's size.
  const size_t half = content.size() / 2;
  ZSTD_inBuffer first{content.data(), half, 0};
  ZSTD_compressStream2(cctx.get(), &ob, &first, ZSTD_e_continue);
  ZSTD_inBuffer rest{content.data() + half, content.size() - half, 0};
  EXPECT_EQ(ZSTD_compressStream2(cctx.get(), &ob, &rest, ZSTD_e_end), 0u);
  out.resize(ob.pos);
  return out;
}

TEST(ZstdWindowTest, AFrameWhoseWindowExceedsTheOutputLimitIsRefused) {
  const Compressor* zstd = FindCompressor("zstd");
  ASSERT_NE(zstd, nullptr);
  const std::string content(100, 'x');
  std::string out;
  // 100 bytes that would make the decoder allocate a 64 MiB window.
  EXPECT_FALSE(zstd->Decompress(FrameWithWindow(content, 26), 1u << 20, &out));
  EXPECT_TRUE(out.empty());
  // The same bytes with a window within the limit decode.
  ASSERT_TRUE(zstd->Decompress(FrameWithWindow(content, 20), 1u << 20, &out));
  EXPECT_EQ(out, content);
}

}  // namespace
}  // namespace ferry::codec
