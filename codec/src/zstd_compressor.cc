#include <zstd.h>

#include <memory>

#include "builtin_extensions.h"
#include "ferry/codec/compressor.h"
#include "ferry/codec/extension_registry.h"

namespace ferry::codec {
namespace {

struct CctxDeleter {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};
struct DctxDeleter {
  void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
};

// zstd contexts are expensive to create; one per thread is reused for every frame.
ZSTD_CCtx* ThreadCctx() {
  thread_local std::unique_ptr<ZSTD_CCtx, CctxDeleter> ctx(ZSTD_createCCtx());
  return ctx.get();
}
// The smallest window log whose window holds `max_output` bytes, within what zstd supports.
int WindowLogFor(size_t max_output) {
  static const ZSTD_bounds bounds = ZSTD_dParam_getBounds(ZSTD_d_windowLogMax);
  int log = bounds.lowerBound;
  while (log < bounds.upperBound && (size_t{1} << log) < max_output) ++log;
  return log;
}

ZSTD_DCtx* ThreadDctx() {
  thread_local std::unique_ptr<ZSTD_DCtx, DctxDeleter> ctx(ZSTD_createDCtx());
  return ctx.get();
}

class ZstdCompressor final : public Compressor {
 public:
  uint8_t id() const override { return compression_id::kZstd; }
  std::string_view name() const override { return "zstd"; }

  bool Compress(std::string_view input, int level, std::string* out) const override {
    const size_t old_size = out->size();
    out->resize(old_size + ZSTD_compressBound(input.size()));
    const size_t n = ZSTD_compressCCtx(ThreadCctx(), out->data() + old_size, out->size() - old_size,
                                       input.data(), input.size(), level);
    if (ZSTD_isError(n)) {
      out->resize(old_size);
      return false;
    }
    out->resize(old_size + n);
    return true;
  }

  bool Decompress(std::string_view input, size_t max_output, std::string* out) const override {
    // The declared size is only a hint from the peer: never trust it beyond max_output, and
    // stream so that a frame without a declared size is bounded too.
    ZSTD_DCtx* dctx = ThreadDctx();
    ZSTD_DCtx_reset(dctx, ZSTD_reset_session_only);
    // The window is what the decoder allocates, and a frame names its own: refuse any larger
    // than the output may be, so that a few bytes cannot make it allocate up to 2 GiB.
    ZSTD_DCtx_setParameter(dctx, ZSTD_d_windowLogMax, WindowLogFor(max_output));
    const size_t old_size = out->size();
    ZSTD_inBuffer in{input.data(), input.size(), 0};
    size_t produced = 0;
    for (;;) {
      const size_t chunk = std::min<size_t>(max_output - produced + 1, 64 * 1024);
      out->resize(old_size + produced + chunk);
      ZSTD_outBuffer ob{out->data() + old_size + produced, chunk, 0};
      const size_t rc = ZSTD_decompressStream(dctx, &ob, &in);
      produced += ob.pos;
      if (ZSTD_isError(rc) || produced > max_output) break;
      if (rc == 0) {
        if (in.pos != in.size) break;  // trailing garbage after the frame
        out->resize(old_size + produced);
        return true;
      }
      if (in.pos == in.size && ob.pos < chunk) break;  // truncated input
    }
    out->resize(old_size);
    return false;
  }
};

}  // namespace

void RegisterZstdCompressor(ExtensionRegistry& registry) {
  auto zstd = std::make_shared<ZstdCompressor>();
  registry.Register<Compressor>("zstd", [zstd] { return zstd; });
}

}  // namespace ferry::codec
