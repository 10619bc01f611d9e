#include "server/peer_address.h"

#include <boost/asio/ip/network_v4.hpp>
#include <boost/asio/ip/network_v6.hpp>

namespace ferry::server {
namespace {

std::string Host(const boost::asio::ip::address& address) {
  return address.is_v6() ? "[" + address.to_string() + "]" : address.to_string();
}

}  // namespace

std::string PeerNetworkOf(const boost::asio::ip::address& address, unsigned v4_prefix,
                          unsigned v6_prefix) {
  namespace ip = boost::asio::ip;
  if (address.is_unspecified()) return "unknown peer";
  if (address.is_v6() && address.to_v6().is_v4_mapped()) {
    return PeerNetworkOf(ip::make_address_v4(ip::v4_mapped, address.to_v6()), v4_prefix, v6_prefix);
  }
  if (address.is_v4()) {
    if (v4_prefix >= 32) return address.to_string();
    const ip::network_v4 network = ip::make_network_v4(address.to_v4(), v4_prefix).canonical();
    return network.address().to_string() + "/" + std::to_string(v4_prefix);
  }
  if (v6_prefix >= 128) return Host(address);
  const ip::network_v6 network = ip::make_network_v6(address.to_v6(), v6_prefix).canonical();
  return Host(network.address()) + "/" + std::to_string(v6_prefix);
}

boost::asio::ip::address PeerIpOf(const boost::asio::ip::tcp::socket& socket) {
  boost::system::error_code error;
  const auto endpoint = socket.remote_endpoint(error);
  return error ? boost::asio::ip::address() : endpoint.address();
}

std::string PeerOf(const boost::asio::ip::tcp::socket& socket) {
  boost::system::error_code error;
  const auto endpoint = socket.remote_endpoint(error);
  return error ? "unknown peer" : Host(endpoint.address()) + ":" + std::to_string(endpoint.port());
}

}  // namespace ferry::server
