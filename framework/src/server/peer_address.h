#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <string>

namespace ferry::server {

// The peer's IP address ("::1" written "[::1]"), or "unknown peer" once it cannot be read.
std::string PeerAddressOf(const boost::asio::ip::tcp::socket& socket);
// The address itself; the unspecified address once it cannot be read.
boost::asio::ip::address PeerIpOf(const boost::asio::ip::tcp::socket& socket);
// The same with ":port", as logs name a connection.
std::string PeerOf(const boost::asio::ip::tcp::socket& socket);

}  // namespace ferry::server
