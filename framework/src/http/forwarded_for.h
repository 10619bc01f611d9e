#pragma once

#include <boost/asio/ip/address.hpp>
#include <span>
#include <string>
#include <utility>

#include "http/trusted_proxies.h"

namespace ferry::http {

// The client a request from `peer` was forwarded for, by the X-Forwarded-For headers among
// `headers` (several are one list, in order), as nginx's realip with real_ip_recursive finds
// it: when `trusted` trusts the peer, the list is walked from the right past the addresses it
// also trusts, and the first it does not is the client (the leftmost when it trusts them all).
// A malformed entry ends the walk at the last good address. Empty when the peer is the client:
// not trusted (what it says is ignored), no header, or nothing good at the list's right end.
// Walks the header values in place: the parser's header limits bound the work.
std::string ForwardedClient(const TrustedProxies& trusted, const boost::asio::ip::address& peer,
                            std::span<const std::pair<std::string, std::string>> headers);

}  // namespace ferry::http
