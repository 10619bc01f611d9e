#include "http/admin_guard.h"

#include <strings.h>

#include <algorithm>
#include <array>
#include <boost/asio/ip/address.hpp>
#include <cctype>

#include "transport/endpoint.h"

namespace ferry::http {
namespace {

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

// A host name as names compare: lower case, without the trailing dot of a fully qualified one.
std::string NormalName(std::string_view name) {
  if (name.ends_with('.')) name.remove_suffix(1);
  return Lower(name);
}

// The host of a Host header ("example.com:8080" -> "example.com", "[::1]:80" -> "[::1]"), as
// NormalName writes it.
std::string HostOf(std::string_view authority) {
  std::string_view host = authority;
  if (host.starts_with('[')) {
    const size_t close = host.find(']');
    host = host.substr(0, close == std::string_view::npos ? host.size() : close + 1);
  } else if (const size_t colon = host.rfind(':'); colon != std::string_view::npos) {
    host = host.substr(0, colon);
  }
  return NormalName(host);
}

bool IsIpLiteral(const std::string& host) {
  boost::system::error_code error;
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    const boost::asio::ip::address address =
        boost::asio::ip::make_address(host.substr(1, host.size() - 2), error);
    return !error && address.is_v6();
  }
  const boost::asio::ip::address address = boost::asio::ip::make_address(host, error);
  return !error && address.is_v4();
}

// "host:port" as an Origin's authority compares with a Host header: lower case, without the
// scheme's default port.
std::string Authority(std::string_view authority, std::string_view scheme) {
  std::string out = Lower(authority);
  const std::string_view default_port = scheme == "https" ? ":443" : scheme == "http" ? ":80" : "";
  if (!default_port.empty() && std::string_view(out).ends_with(default_port)) {
    out.resize(out.size() - default_port.size());
  }
  return out;
}

bool SaysForwarded(const HttpRequest& request) {
  static constexpr std::array<std::string_view, 3> kHeaders = {"X-Forwarded-For", "Forwarded",
                                                               "X-Real-IP"};
  for (const auto& [name, value] : request.headers()) {
    for (const std::string_view header : kHeaders) {
      if (EqualsIgnoringCase(name, header)) return true;
    }
  }
  return false;
}

HttpResponse Forbidden(std::string body) {
  HttpResponse response;
  response.status = 403;
  response.Set("Content-Type", "text/plain; charset=utf-8");
  response.Set("Cache-Control", "no-store");
  response.Set("X-Content-Type-Options", "nosniff");
  response.body = std::move(body);
  return response;
}

}  // namespace

Status AdminGuard::Create(const ServerOptions& options, std::string_view key_prefix,
                          AdminGuard* out) {
  AdminGuard guard;
  if (Status parsed =
          TrustedProxies::FromList(options.http.admin_networks,
                                   std::string(key_prefix) + "admin_networks", &guard.networks_);
      !parsed.ok()) {
    return parsed;
  }
  if (Status parsed =
          TrustedProxies::FromList(options.http.trusted_proxies,
                                   std::string(key_prefix) + "trusted_proxies", &guard.proxies_);
      !parsed.ok()) {
    return parsed;
  }
  for (const std::string& listen : {options.listen, options.http.admin_listen}) {
    transport::Endpoint endpoint;
    if (listen.empty() || !transport::ParseEndpoint(listen, &endpoint).ok()) continue;
    guard.hosts_.push_back(NormalName(endpoint.host));
  }
  for (const std::string& host : options.http.admin_hosts) {
    guard.hosts_.push_back(NormalName(host));
  }
  *out = std::move(guard);
  return Status::Ok();
}

bool AdminGuard::AdminNetwork(std::string_view client_address) const {
  if (networks_.empty()) return false;
  boost::system::error_code error;
  const boost::asio::ip::address address =
      boost::asio::ip::make_address(std::string(client_address), error);
  return !error && networks_.Trusts(address);
}

AdminGuard::Port AdminGuard::RoutesFor(Port port, const HttpRequest& request,
                                       const boost::asio::ip::address& peer) const {
  if (port != Port::kEvery) return port;
  // A trusted proxy's request is its client's, the one HttpRequest::client_address() names. Any
  // other peer is the client, unless it says it forwards for one: then a proxy on this host that
  // is not listed in trusted_proxies would make everyone behind it a local client.
  const bool admin = proxies_.Trusts(peer) ? AdminNetwork(request.client_address())
                                           : networks_.Trusts(peer) && !SaysForwarded(request);
  return admin ? Port::kEvery : Port::kOutside;
}

bool AdminGuard::KnownHost(std::string_view host) const {
  if (host.empty()) return false;
  const std::string lower(host);
  if (lower == "localhost" || std::string_view(lower).ends_with(".localhost")) return true;
  if (IsIpLiteral(lower)) return true;
  return std::find(hosts_.begin(), hosts_.end(), lower) != hosts_.end();
}

std::optional<HttpResponse> AdminGuard::Refusal(const HttpRequest& request) const {
  std::string_view host_header;
  size_t hosts = 0;
  for (const auto& [name, value] : request.headers()) {
    if (EqualsIgnoringCase(name, "Host")) {
      host_header = value;
      ++hosts;
    }
  }
  // Browsers always send one Host: a request without is no browser's, and so nobody's
  // rebinding.
  if (hosts > 1 || (hosts == 1 && !KnownHost(HostOf(host_header)))) {
    return Forbidden(
        "admin pages answer requests for this server's own names only: an IP address, "
        "localhost, the host of server.listen or server.http.admin_listen, or one of "
        "server.http.admin_hosts\n");
  }
  if (request.method() == "GET" || request.method() == "HEAD") return std::nullopt;
  const std::string_view fetch_site = request.Header("Sec-Fetch-Site");
  if (!fetch_site.empty() && fetch_site != "same-origin" && fetch_site != "none") {
    return Forbidden("admin pages refuse what another site's page sends (Sec-Fetch-Site: " +
                     std::string(fetch_site) + ")\n");
  }
  const std::string_view origin = request.Header("Origin");
  if (origin.empty()) return std::nullopt;
  const size_t scheme_end = origin.find("://");
  const bool own = scheme_end != std::string_view::npos && hosts == 1 && [&] {
    const std::string scheme = Lower(origin.substr(0, scheme_end));
    return Authority(origin.substr(scheme_end + 3), scheme) == Authority(host_header, scheme);
  }();
  if (!own) {
    return Forbidden("admin pages refuse a request from another origin than their own (Origin: " +
                     std::string(origin) + ")\n");
  }
  return std::nullopt;
}

}  // namespace ferry::http
