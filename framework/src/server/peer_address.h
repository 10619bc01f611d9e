#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <string>

namespace ferry::server {

// The address itself; the unspecified address once it cannot be read.
boost::asio::ip::address PeerIpOf(const boost::asio::ip::tcp::socket& socket);
// The same with ":port", as logs name a connection.
std::string PeerOf(const boost::asio::ip::tcp::socket& socket);
// The peer `address` is counted as by server.limits.max_connections_per_peer: its network of
// `v4_prefix` bits (an IPv4-mapped IPv6 address is IPv4) or `v6_prefix` bits, written as
// the address alone when the prefix is all of it ("10.1.2.3", "[::1]"), else with the prefix
// ("10.1.2.0/24", "[2001:db8::]/64"); "unknown peer" for the unspecified address.
std::string PeerNetworkOf(const boost::asio::ip::address& address, unsigned v4_prefix,
                          unsigned v6_prefix);

}  // namespace ferry::server
