#include "service/qr_code.h"

#include <gtest/gtest.h>
#include <png.h>
#include <zbar.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ferry::shortlink {
namespace {

constexpr char kLink[] = "https://sho.rt/Ab3xYz9";
// kLink is 22 bytes: too many for version 1 at level M (14), so version 2, 25 modules a side.
constexpr int kLinkModules = 25;
constexpr int kQuietZone = 4;

struct GrayImage {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> pixels;  // row by row, 0 black, 255 white
};

// The PNG as 8-bit gray through libpng's simplified API; nullopt (and a test failure) when
// libpng cannot read it.
std::optional<GrayImage> DecodePng(const std::string& png) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&image, png.data(), png.size())) {
    ADD_FAILURE() << "png_image_begin_read_from_memory: " << image.message;
    return std::nullopt;
  }
  image.format = PNG_FORMAT_GRAY;
  GrayImage gray;
  gray.width = static_cast<int>(image.width);
  gray.height = static_cast<int>(image.height);
  gray.pixels.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, gray.pixels.data(), 0, nullptr)) {
    ADD_FAILURE() << "png_image_finish_read: " << image.message;
    png_image_free(&image);
    return std::nullopt;
  }
  return gray;
}

// zbar.h declares its C API in namespace zbar when compiled as C++.
struct ScannerFree {
  void operator()(zbar::zbar_image_scanner_t* scanner) const {
    zbar::zbar_image_scanner_destroy(scanner);
  }
};
struct ImageFree {
  void operator()(zbar::zbar_image_t* image) const { zbar::zbar_image_destroy(image); }
};

// Every QR code zbar finds in the image, each symbol's bytes as encoded: ZBAR_CFG_BINARY keeps
// zbar from guessing a character set and converting.
std::vector<std::string> ScanQr(const GrayImage& gray) {
  std::unique_ptr<zbar::zbar_image_scanner_t, ScannerFree> scanner(
      zbar::zbar_image_scanner_create());
  zbar::zbar_image_scanner_set_config(scanner.get(), zbar::ZBAR_NONE, zbar::ZBAR_CFG_ENABLE, 0);
  zbar::zbar_image_scanner_set_config(scanner.get(), zbar::ZBAR_QRCODE, zbar::ZBAR_CFG_ENABLE, 1);
  zbar::zbar_image_scanner_set_config(scanner.get(), zbar::ZBAR_QRCODE, zbar::ZBAR_CFG_BINARY, 1);
  std::unique_ptr<zbar::zbar_image_t, ImageFree> image(zbar::zbar_image_create());
  zbar::zbar_image_set_format(image.get(), zbar_fourcc('Y', '8', '0', '0'));
  zbar::zbar_image_set_size(image.get(), gray.width, gray.height);
  // No cleanup handler: `gray` owns the pixels and outlives the image.
  zbar::zbar_image_set_data(image.get(), gray.pixels.data(), gray.pixels.size(), nullptr);
  std::vector<std::string> found;
  if (zbar::zbar_scan_image(scanner.get(), image.get()) <= 0) return found;
  for (const zbar::zbar_symbol_t* symbol = zbar::zbar_image_first_symbol(image.get());
       symbol != nullptr; symbol = zbar::zbar_symbol_next(symbol)) {
    if (zbar::zbar_symbol_get_type(symbol) != zbar::ZBAR_QRCODE) continue;
    found.emplace_back(zbar::zbar_symbol_get_data(symbol),
                       zbar::zbar_symbol_get_data_length(symbol));
  }
  return found;
}

// The text of the one QR code in `png`, or a test failure.
std::string ScanPng(const std::string& png) {
  std::optional<GrayImage> gray = DecodePng(png);
  if (!gray) return "";
  std::vector<std::string> found = ScanQr(*gray);
  EXPECT_EQ(found.size(), 1u);
  return found.empty() ? "" : found[0];
}

struct Svg {
  int modules = 0;  // the viewBox's side
  // Each subpath "M x y h n v1 h-n z": a run of n dark modules from (x, y).
  struct Run {
    int x, y, n;
  };
  std::vector<Run> runs;
};

// Reads the SVG a piece at a time. Not std::regex: GCC 12 warns (maybe-uninitialized) inside
// <regex> under -fsanitize=address, and warnings are errors.
class SvgReader {
 public:
  explicit SvgReader(std::string_view svg) : svg_(svg), rest_(svg) {}
  bool Literal(std::string_view literal) {
    if (!rest_.starts_with(literal)) return false;
    rest_.remove_prefix(literal.size());
    return true;
  }
  bool Number(int* number) {
    size_t digits = 0;
    int value = 0;
    // Six digits are far more than any coordinate; the bound keeps `value` from overflowing.
    while (digits < rest_.size() && digits < 6 && rest_[digits] >= '0' && rest_[digits] <= '9') {
      value = value * 10 + (rest_[digits++] - '0');
    }
    if (digits == 0) return false;
    rest_.remove_prefix(digits);
    *number = value;
    return true;
  }
  bool Done() const { return rest_.empty(); }
  std::string Where() const {
    return "at offset " + std::to_string(svg_.size() - rest_.size()) + ": \"" +
           std::string(rest_.substr(0, 60)) + "\"";
  }

 private:
  const std::string_view svg_;
  std::string_view rest_;
};

// Parses exactly the SVG QrCodeSvg writes, failing the test on anything else: the format is
// what a browser gets, so a drift should show here rather than as a broken image.
std::optional<Svg> ParseSvg(const std::string& svg) {
  SvgReader reader(svg);
  Svg parsed;
  int height = 0, rect_width = 0, rect_height = 0;
  if (!(reader.Literal("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 ") &&
        reader.Number(&parsed.modules) && reader.Literal(" ") && reader.Number(&height) &&
        reader.Literal("\" shape-rendering=\"crispEdges\"><rect width=\"") &&
        reader.Number(&rect_width) && reader.Literal("\" height=\"") &&
        reader.Number(&rect_height) &&
        reader.Literal("\" fill=\"#fff\"/><path fill=\"#000\" d=\""))) {
    ADD_FAILURE() << "not the expected SVG head " << reader.Where();
    return std::nullopt;
  }
  EXPECT_EQ(height, parsed.modules) << "viewBox not square";
  EXPECT_EQ(rect_width, parsed.modules) << "background not the viewBox";
  EXPECT_EQ(rect_height, parsed.modules) << "background not the viewBox";
  while (reader.Literal("M")) {
    Svg::Run run{};
    int back = 0;
    if (!(reader.Number(&run.x) && reader.Literal(" ") && reader.Number(&run.y) &&
          reader.Literal("h") && reader.Number(&run.n) && reader.Literal("v1h-") &&
          reader.Number(&back) && reader.Literal("z"))) {
      ADD_FAILURE() << "not a run " << reader.Where();
      return std::nullopt;
    }
    EXPECT_EQ(back, run.n) << "subpath does not close its run " << reader.Where();
    parsed.runs.push_back(run);
  }
  if (!(reader.Literal("\"/></svg>\n") && reader.Done())) {
    ADD_FAILURE() << "not the expected SVG tail " << reader.Where();
    return std::nullopt;
  }
  return parsed;
}

// The SVG drawn as a renderer would with crispEdges: `scale` pixels a module.
GrayImage Rasterise(const Svg& svg, int scale) {
  GrayImage gray;
  gray.width = gray.height = svg.modules * scale;
  gray.pixels.assign(static_cast<size_t>(gray.width) * gray.height, 255);
  for (const Svg::Run& run : svg.runs) {
    for (int y = run.y * scale; y < (run.y + 1) * scale; ++y) {
      for (int x = run.x * scale; x < (run.x + run.n) * scale; ++x) {
        gray.pixels[static_cast<size_t>(y) * gray.width + x] = 0;
      }
    }
  }
  return gray;
}

// The PNG's IHDR, read from the bytes: the simplified API would convert any format to gray.
void ExpectOneBitGray(const std::string& png, int size_px) {
  ASSERT_GE(png.size(), 33u);
  EXPECT_EQ(png.substr(0, 8), "\x89PNG\r\n\x1a\n");
  EXPECT_EQ(png.substr(12, 4), "IHDR");
  auto u32 = [&](size_t at) {
    return static_cast<int>(
        static_cast<uint8_t>(png[at]) << 24 | static_cast<uint8_t>(png[at + 1]) << 16 |
        static_cast<uint8_t>(png[at + 2]) << 8 | static_cast<uint8_t>(png[at + 3]));
  };
  EXPECT_EQ(u32(16), size_px);
  EXPECT_EQ(u32(20), size_px);
  EXPECT_EQ(png[24], 1) << "bit depth";
  EXPECT_EQ(png[25], 0) << "colour type (0: grayscale)";
}

TEST(QrCodeTest, PngDecodesToTheLink) {
  std::string png;
  ASSERT_TRUE(QrCodePng(kLink, 4, &png).ok());
  ExpectOneBitGray(png, (kLinkModules + 2 * kQuietZone) * 4);
  EXPECT_EQ(ScanPng(png), kLink);
}

TEST(QrCodeTest, SvgRasterisedDecodesToTheLinkWithTheQuietZoneInTheViewBox) {
  std::string svg;
  ASSERT_TRUE(QrCodeSvg(kLink, &svg).ok());
  std::optional<Svg> parsed = ParseSvg(svg);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->modules, kLinkModules + 2 * kQuietZone);
  ASSERT_FALSE(parsed->runs.empty());
  // Nothing dark in the quiet zone.
  for (const Svg::Run& run : parsed->runs) {
    EXPECT_GE(run.x, kQuietZone);
    EXPECT_GE(run.y, kQuietZone);
    EXPECT_GE(run.n, 1);
    EXPECT_LE(run.x + run.n, kQuietZone + kLinkModules);
    EXPECT_LT(run.y, kQuietZone + kLinkModules);
  }
  // Row by row, left to right, and merged: a gap between any two runs on a row.
  for (size_t i = 1; i < parsed->runs.size(); ++i) {
    const Svg::Run& a = parsed->runs[i - 1];
    const Svg::Run& b = parsed->runs[i];
    EXPECT_TRUE(a.y < b.y || (a.y == b.y && a.x + a.n < b.x))
        << "runs at (" << a.x << "," << a.y << ") and (" << b.x << "," << b.y << ")";
  }
  // The top-left finder pattern's first row: seven dark modules at the quiet zone's corner.
  EXPECT_EQ(parsed->runs[0].x, kQuietZone);
  EXPECT_EQ(parsed->runs[0].y, kQuietZone);
  EXPECT_EQ(parsed->runs[0].n, 7);

  GrayImage raster = Rasterise(*parsed, 4);
  std::vector<std::string> found = ScanQr(raster);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0], kLink);

  // The same modules as the PNG, pixel for pixel.
  std::string png;
  ASSERT_TRUE(QrCodePng(kLink, 4, &png).ok());
  std::optional<GrayImage> from_png = DecodePng(png);
  ASSERT_TRUE(from_png);
  EXPECT_EQ(from_png->width, raster.width);
  EXPECT_EQ(from_png->height, raster.height);
  EXPECT_TRUE(from_png->pixels == raster.pixels);
}

TEST(QrCodeTest, QueryAndUtf8BytesRoundTripExactly) {
  // "é" as its two UTF-8 bytes, spelled out so the test says which bytes it means.
  const std::string text = "https://sho.rt/x?utm=\xc3\xa9&a=1";
  std::string png;
  ASSERT_TRUE(QrCodePng(text, 4, &png).ok());
  EXPECT_EQ(ScanPng(png), text);
}

TEST(QrCodeTest, BytesThatAreNotUtf8AndNulRoundTripExactly) {
  static constexpr char kBytes[] = "Latin-1 \xe9t\xe9, a NUL \x00 and CaSe";
  const std::string text(kBytes, sizeof kBytes - 1);
  std::string png;
  ASSERT_TRUE(QrCodePng(text, 4, &png).ok());
  EXPECT_EQ(ScanPng(png), text);
}

TEST(QrCodeTest, TooLongOrEmptyTextIsInvalidArgument) {
  std::string svg = "untouched";
  std::string png = "untouched";
  const std::string too_long(3000, 'a');
  Status s = QrCodeSvg(too_long, &svg);
  EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT) << s;
  EXPECT_NE(s.message().find("3000"), std::string::npos) << s;
  s = QrCodePng(too_long, 4, &png);
  EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT) << s;
  EXPECT_EQ(QrCodePng(std::string(kQrMaxTextBytes + 1, 'a'), 4, &png).code(),
            StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(QrCodeSvg("", &svg).code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(QrCodePng("", 4, &png).code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(svg, "untouched");
  EXPECT_EQ(png, "untouched");
}

TEST(QrCodeTest, TheLongestTextAcceptedFitsACodeThatDecodes) {
  std::string text;
  for (size_t i = 0; text.size() < kQrMaxTextBytes; ++i) text += static_cast<char>(i * 131 % 256);
  std::string png;
  ASSERT_TRUE(QrCodePng(text, 4, &png).ok());
  // 2048 bytes at level M take version 38, 169 modules a side (version 37 holds 1989).
  ExpectOneBitGray(png, (169 + 2 * kQuietZone) * 4);
  // Not EXPECT_EQ: 2048 bytes printed twice would bury the failure.
  EXPECT_TRUE(ScanPng(png) == text) << "the decoded text differs";
  std::string svg;
  EXPECT_TRUE(QrCodeSvg(text, &svg).ok());
}

TEST(QrCodeTest, ModulePxIsClampedToOneAndThirtyTwo) {
  const int modules = kLinkModules + 2 * kQuietZone;
  const std::vector<std::pair<int, int>> asked_and_clamped = {{0, 1}, {-5, 1},  {1, 1},
                                                              {7, 7}, {32, 32}, {100, 32}};
  for (auto [asked, clamped] : asked_and_clamped) {
    SCOPED_TRACE("module_px " + std::to_string(asked));
    std::string png;
    ASSERT_TRUE(QrCodePng(kLink, asked, &png).ok());
    ExpectOneBitGray(png, modules * clamped);
    std::optional<GrayImage> gray = DecodePng(png);
    ASSERT_TRUE(gray);
    EXPECT_EQ(gray->width, modules * clamped);
    EXPECT_EQ(gray->height, modules * clamped);
  }
  std::string png;
  ASSERT_TRUE(QrCodePng(kLink, 100, &png).ok());
  EXPECT_EQ(ScanPng(png), kLink);
}

}  // namespace
}  // namespace ferry::shortlink
