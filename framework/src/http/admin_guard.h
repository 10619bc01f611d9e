#pragma once

#include <boost/asio/ip/address.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ferry/codec/status.h"
#include "ferry/framework/http.h"
#include "ferry/framework/server_options.h"
#include "http/http_router.h"
#include "http/trusted_proxies.h"

namespace ferry::http {

// Who may have the admin pages (HttpRoute::admin), docs/http.md "Admin pages":
// - on the server's shared port, clients in server.http.admin_networks only: to any other the
//   pages are not there, as if they had a listener of their own, health probes excepted;
// - on any port, requests whose Host is an IP address, localhost (or a name under .localhost),
//   the host of `listen` or `admin_listen`, or one of server.http.admin_hosts: a page that DNS
//   rebinding gets a browser to read has the attacker's name as its Host;
// - on any port, for a method other than GET and HEAD, requests without an Origin or with this
//   server's own, and without a Sec-Fetch-Site other than same-origin or none: what another site
//   makes a browser send (CSRF) has that site's.
// Built once at start and read-only afterwards, so IO and pool threads read it without locking.
class AdminGuard {
 public:
  using Port = HttpRouter::Port;

  // INVALID_ARGUMENT naming `key_prefix` and the entry when an admin_networks entry is not a
  // network.
  static Status Create(const ServerOptions& options, std::string_view key_prefix, AdminGuard* out);

  // Which routes a request from TCP peer `peer` on a listener serving `port` may reach: kOutside
  // instead of kEvery for a client (HttpRequest::client_address(), the one a trusted proxy
  // names) outside admin_networks, and for a request that says a proxy forwarded it (an
  // X-Forwarded-For, Forwarded or X-Real-IP header) from a peer that is no trusted proxy: its
  // client, behind that proxy, is not known.
  Port RoutesFor(Port port, const HttpRequest& request, const boost::asio::ip::address& peer) const;

  // The 403 answer to a request for an admin page that fails the Host or Origin check; nullopt
  // when it passes.
  std::optional<HttpResponse> Refusal(const HttpRequest& request) const;

 private:
  bool AdminNetwork(std::string_view client_address) const;
  bool KnownHost(std::string_view host) const;  // a Host header's host, without its port

  TrustedProxies networks_;
  TrustedProxies proxies_;          // server.http.trusted_proxies
  std::vector<std::string> hosts_;  // lower case, without a trailing dot
};

}  // namespace ferry::http
