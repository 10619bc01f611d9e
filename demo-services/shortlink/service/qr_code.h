#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "ferry/codec/status.h"

namespace ferry::shortlink {

// Longest text accepted, in bytes, checked before encoding to bound a request's work: the
// longest target URL UrlPolicy accepts by default (a version-40 code at level M holds 2331).
inline constexpr size_t kQrMaxTextBytes = 2048;

// A QR code of `text` (error correction level M, 4-module quiet zone), the text's bytes as they
// are (8-bit mode, no case folding, NUL bytes allowed). INVALID_ARGUMENT for empty text or text
// a code cannot hold (see kQrMaxTextBytes); INTERNAL for any other failure of the encoder.

// As image/svg+xml: a white square and one <path> of the dark modules, the viewBox in modules
// and no width or height, so the page sizes it; shape-rendering="crispEdges" keeps the modules'
// edges sharp at any scale.
Status QrCodeSvg(std::string_view text, std::string* svg);

// As a 1-bit grayscale PNG of `module_px` pixels per module, clamped to 1..32.
Status QrCodePng(std::string_view text, int module_px, std::string* png);

}  // namespace ferry::shortlink
