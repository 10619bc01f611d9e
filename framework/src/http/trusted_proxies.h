#pragma once

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/network_v4.hpp>
#include <boost/asio/ip/network_v6.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "ferry/codec/status.h"

namespace ferry::http {

// The networks whose connections are reverse proxies the server believes about whom they
// forward for (server.http.trusted_proxies, docs/http.md). Empty: nobody is.
class TrustedProxies {
 public:
  // Adds "10.0.0.0/8", "::1/128" or a bare address (one host). INVALID_ARGUMENT saying what is
  // wrong, without the key, which the caller knows: a typo must not trust the wrong network.
  Status Add(std::string_view network);
  // Every entry of `networks`, or the first error as "<key>[i]: ...".
  static Status FromList(const std::vector<std::string>& networks, std::string_view key,
                         TrustedProxies* out);

  bool empty() const { return v4_.empty() && v6_.empty(); }
  // An IPv4-mapped IPv6 address (a dual-stack listener's IPv4 peer) is its IPv4 address.
  bool Trusts(const boost::asio::ip::address& address) const;

 private:
  std::vector<boost::asio::ip::network_v4> v4_;
  std::vector<boost::asio::ip::network_v6> v6_;
};

}  // namespace ferry::http
