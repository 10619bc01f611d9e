#include "server/peer_address.h"

namespace ferry::server {
namespace {

std::string Host(const boost::asio::ip::address& address) {
  return address.is_v6() ? "[" + address.to_string() + "]" : address.to_string();
}

}  // namespace

std::string PeerAddressOf(const boost::asio::ip::tcp::socket& socket) {
  boost::system::error_code error;
  const auto endpoint = socket.remote_endpoint(error);
  return error ? "unknown peer" : Host(endpoint.address());
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
