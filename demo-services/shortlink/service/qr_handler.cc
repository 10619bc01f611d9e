// GET /{code}/qr of ShortLinkServiceImpl: a link's short URL as a QR code.
#include "service/code_rules.h"
#include "service/domain_table.h"
#include "service/qr_code.h"
#include "service/shortlink_service.h"
#include "storage/link_key.h"

namespace ferry::shortlink {

namespace {

// The value of `name` in a query string ("" when absent); values are taken as sent.
std::string_view QueryValue(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    if (pair.size() > name.size() && pair.starts_with(name) && pair[name.size()] == '=') {
      return pair.substr(name.size() + 1);
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return {};
}

HttpResponse Plain(int status, std::string text) {
  HttpResponse response;
  response.status = status;
  response.Set("Content-Type", "text/plain; charset=utf-8");
  response.body = std::move(text) + "\n";
  return response;
}

}  // namespace

HttpResponse ShortLinkServiceImpl::QrCodeAnswer(const HttpRequest& request) {
  const int64_t now = deps_.now_ms();
  if (deps_.not_found_budget->Exhausted(request.client_address(), now)) {
    HttpResponse page = Plain(429, "Too many unknown links; try again in a minute.");
    page.Set("Retry-After", "60");
    return page;
  }
  const std::string_view format = QueryValue(request.query(), "format");
  if (!format.empty() && format != "svg" && format != "png") {
    return Plain(400, "format: svg (the default) or png");
  }
  // ?domain= names a custom domain from another host (the web page, on the service's own).
  const std::string_view domain = QueryValue(request.query(), "domain");
  const std::string key =
      domain.empty() ? RedirectKey(request)
                     : LinkKey(deps_.domain_table->DomainOfHost(domain), request.Param("code"));
  LinkResolver::LinkPtr link;
  if (LooksLikeCode(std::string(CodeOfKey(key)))) {
    if (Status s = deps_.resolver->Lookup(key, &link); !s.ok()) {
      HttpResponse page = Plain(503, "The link service cannot answer now; try again.");
      page.Set("Retry-After", "1");
      return page;
    }
  }
  if (!link || link->deleted) {
    // Unknown codes cost the client's 404 allowance here as on the redirect: no walking by QR.
    deps_.not_found_budget->Take(request.client_address(), now);
    return Plain(404, "There is no short link here.");
  }
  const std::string url = ShortUrl(DomainOfKey(key), CodeOfKey(key));
  HttpResponse response;
  Status made;
  if (format == "png") {
    made = QrCodePng(url, kQrPngModulePixels, &response.body);
    response.Set("Content-Type", "image/png");
  } else {
    made = QrCodeSvg(url, &response.body);
    response.Set("Content-Type", "image/svg+xml");
  }
  if (!made.ok()) return Plain(500, made.message());
  // The code's short URL never changes; a deleted link's QR code stops within the hour.
  response.Set("Cache-Control", "public, max-age=3600");
  response.Set("X-Content-Type-Options", "nosniff");
  return response;
}

}  // namespace ferry::shortlink
