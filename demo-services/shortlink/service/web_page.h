#pragma once

#include <string_view>

#include "ferry/framework/http.h"

namespace ferry::shortlink {

// The service's web page, served at GET /links: paste a URL, get the short link; a link's
// clicks per day as an SVG chart of PV and UV. Plain HTML and JavaScript calling the JSON
// gateway with the tenant's key (kept in the browser's localStorage; `#key=...` in the page's
// address fills it in without sending it to the server).
std::string_view WebPageHtml();
// The page's protection: a Content-Security-Policy allowing only its own script and style (by
// their SHA-256) and calls to this origin, no framing (frame-ancestors 'none'), nosniff, and no
// Referer to the sites its links lead to.
void SetWebPageHeaders(HttpResponse* response);

}  // namespace ferry::shortlink
