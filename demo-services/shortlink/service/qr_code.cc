#include "service/qr_code.h"

#include <png.h>
#include <qrencode.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <memory>
#include <system_error>
#include <vector>

namespace ferry::shortlink {

namespace {

// The quiet zone the standard asks for: readers find the finder patterns by the light margin.
constexpr int kQuietZone = 4;
constexpr int kMinModulePx = 1;
// Bounds a request's image: the largest code accepted (version 38, 177 modules with the quiet
// zone) is 5664 pixels square at 32.
constexpr int kMaxModulePx = 32;

struct QrCodeFree {
  void operator()(QRcode* code) const { QRcode_free(code); }
};
using QrCodePtr = std::unique_ptr<QRcode, QrCodeFree>;

Status Encode(std::string_view text, QrCodePtr* code) {
  if (text.empty()) return Status(StatusCode::INVALID_ARGUMENT, "qr code: empty text");
  if (text.size() > kQrMaxTextBytes) {
    return Status(StatusCode::INVALID_ARGUMENT, "qr code: text of " + std::to_string(text.size()) +
                                                    " bytes, more than the " +
                                                    std::to_string(kQrMaxTextBytes) + " accepted");
  }
  // QRcode_encodeData rather than QRcode_encodeString8bit: the same 8-bit mode, but it takes a
  // length, so a NUL byte is encoded rather than silently ending the text.
  errno = 0;
  code->reset(QRcode_encodeData(static_cast<int>(text.size()),
                                reinterpret_cast<const unsigned char*>(text.data()), 0,
                                QR_ECLEVEL_M));
  if (*code != nullptr) return Status::Ok();
  const int error = errno;
  if (error == ERANGE) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "qr code: text of " + std::to_string(text.size()) +
                      " bytes does not fit a QR code at error correction level M");
  }
  if (error == EINVAL) {
    return Status(StatusCode::INVALID_ARGUMENT, "qr code: libqrencode refused the text");
  }
  return Status(StatusCode::INTERNAL,
                "qr code: libqrencode failed: " + std::generic_category().message(error));
}

// Bit 0 of each of libqrencode's module bytes is the colour; the others say what the module is.
bool Dark(const QRcode& code, int x, int y) { return (code.data[y * code.width + x] & 1) != 0; }

// What libpng's callbacks share; plain data, as it is used on both sides of the longjmp.
struct PngSink {
  std::string* out;
  char error[160];
};

void PngWrite(png_structp png, png_bytep data, size_t length) {
  auto* sink = static_cast<PngSink*>(png_get_io_ptr(png));
  bool appended = false;
  // An exception must not unwind through libpng's C frames; it becomes a libpng error, raised
  // once the catch block (and the exception object) is gone.
  try {
    sink->out->append(reinterpret_cast<const char*>(data), length);
    appended = true;
  } catch (...) {
  }
  if (!appended) png_error(png, "out of memory");
}

void PngFlush(png_structp) {}

void PngError(png_structp png, png_const_charp message) {
  auto* sink = static_cast<PngSink*>(png_get_error_ptr(png));
  std::snprintf(sink->error, sizeof sink->error, "%s", message);
  png_longjmp(png, 1);
}

// libpng's default handler prints warnings to stderr; none of them matter for a fixed format.
void PngWarning(png_structp, png_const_charp) {}

// libpng reports errors by longjmp to the setjmp below, which skips destructors: so nothing here
// has one, and the caller owns the buffers. `module_rows` holds one packed pixel row for each
// row of modules, each written `module_px` times.
bool WritePng(const unsigned char* module_rows, size_t row_bytes, int modules, int module_px,
              PngSink* sink) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, sink, PngError, PngWarning);
  if (png == nullptr) {
    std::snprintf(sink->error, sizeof sink->error, "png_create_write_struct failed");
    return false;
  }
  png_infop info = png_create_info_struct(png);
  if (info == nullptr) {
    png_destroy_write_struct(&png, nullptr);
    std::snprintf(sink->error, sizeof sink->error, "png_create_info_struct failed");
    return false;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_set_write_fn(png, sink, PngWrite, PngFlush);
  const png_uint_32 size_px = static_cast<png_uint_32>(modules) * module_px;
  png_set_IHDR(png, info, size_px, size_px, 1, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int y = 0; y < modules; ++y) {
    for (int i = 0; i < module_px; ++i) png_write_row(png, module_rows + y * row_bytes);
  }
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}

}  // namespace

Status QrCodeSvg(std::string_view text, std::string* svg) {
  QrCodePtr code;
  if (Status status = Encode(text, &code); !status.ok()) return status;
  const int width = code->width;
  const std::string size = std::to_string(width + 2 * kQuietZone);
  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " + size + " " + size +
                    "\" shape-rendering=\"crispEdges\"><rect width=\"" + size + "\" height=\"" +
                    size + "\" fill=\"#fff\"/><path fill=\"#000\" d=\"";
  // One rectangle per horizontal run of dark modules rather than one per module: runs average
  // about two modules, so this roughly halves the path.
  for (int y = 0; y < width; ++y) {
    for (int x = 0; x < width;) {
      if (!Dark(*code, x, y)) {
        ++x;
        continue;
      }
      int end = x + 1;
      while (end < width && Dark(*code, end, y)) ++end;
      const std::string run = std::to_string(end - x);
      out += "M" + std::to_string(x + kQuietZone) + " " + std::to_string(y + kQuietZone) + "h" +
             run + "v1h-" + run + "z";
      x = end;
    }
  }
  out += "\"/></svg>\n";
  *svg = std::move(out);
  return Status::Ok();
}

Status QrCodePng(std::string_view text, int module_px, std::string* png) {
  QrCodePtr code;
  if (Status status = Encode(text, &code); !status.ok()) return status;
  module_px = std::clamp(module_px, kMinModulePx, kMaxModulePx);
  const int width = code->width;
  const int modules = width + 2 * kQuietZone;
  const size_t size_px = static_cast<size_t>(modules) * module_px;
  const size_t row_bytes = (size_px + 7) / 8;
  // In 1-bit grayscale 1 is white: start all light, the quiet zone included, and clear the
  // dark modules' bits.
  std::vector<unsigned char> module_rows(static_cast<size_t>(modules) * row_bytes, 0xff);
  for (int y = 0; y < width; ++y) {
    unsigned char* row = module_rows.data() + static_cast<size_t>(y + kQuietZone) * row_bytes;
    for (int x = 0; x < width; ++x) {
      if (!Dark(*code, x, y)) continue;
      const size_t first = static_cast<size_t>(x + kQuietZone) * module_px;
      for (size_t p = first; p < first + module_px; ++p) {
        row[p / 8] &= static_cast<unsigned char>(~(0x80u >> (p % 8)));
      }
    }
  }
  std::string out;
  PngSink sink{&out, {}};
  if (!WritePng(module_rows.data(), row_bytes, modules, module_px, &sink)) {
    return Status(StatusCode::INTERNAL, std::string("qr code: libpng failed: ") + sink.error);
  }
  *png = std::move(out);
  return Status::Ok();
}

}  // namespace ferry::shortlink
