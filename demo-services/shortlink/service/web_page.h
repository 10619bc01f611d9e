#pragma once

#include <string_view>

namespace ferry::shortlink {

// The service's web page, served at GET /links: paste a URL, get the short link; a link's
// clicks per day as an SVG chart of PV and UV. Plain HTML and JavaScript calling the JSON
// gateway with the tenant's key (kept in the browser's localStorage; `#key=...` in the page's
// address fills it in without sending it to the server).
std::string_view WebPageHtml();

}  // namespace ferry::shortlink
