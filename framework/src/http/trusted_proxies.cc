#include "http/trusted_proxies.h"

namespace ferry::http {
namespace {

namespace ip = boost::asio::ip;

Status Invalid(std::string_view network, std::string_view why) {
  return Status(StatusCode::INVALID_ARGUMENT,
                "'" + std::string(network) + "' is not a network: " + std::string(why));
}

// The prefix length after '/', at most `max`; false when it is not one.
bool ParsePrefix(std::string_view digits, unsigned max, unsigned* out) {
  if (digits.empty() || digits.size() > 3) return false;
  unsigned prefix = 0;
  for (const char c : digits) {
    if (c < '0' || c > '9') return false;
    prefix = prefix * 10 + static_cast<unsigned>(c - '0');
  }
  *out = prefix;
  return prefix <= max;
}

template <class Network>
Status Append(std::string_view text, const Network& network, std::vector<Network>* into) {
  if (network.network() != network.address()) {
    return Invalid(text,
                   "it has host bits set (the network is " + network.canonical().to_string() + ")");
  }
  into->push_back(network);
  return Status::Ok();
}

}  // namespace

Status TrustedProxies::Add(std::string_view network) {
  const size_t slash = network.find('/');
  boost::system::error_code error;
  const ip::address address = ip::make_address(network.substr(0, slash), error);
  if (error) return Invalid(network, "expected an IP address, e.g. 10.0.0.0/8 or ::1/128");
  const unsigned max_prefix = address.is_v4() ? 32 : 128;
  unsigned prefix = max_prefix;
  if (slash != std::string_view::npos &&
      !ParsePrefix(network.substr(slash + 1), max_prefix, &prefix)) {
    return Invalid(
        network, "expected a prefix length from 0 to " + std::to_string(max_prefix) + " after '/'");
  }
  if (address.is_v4()) return Append(network, ip::network_v4(address.to_v4(), prefix), &v4_);
  return Append(network, ip::network_v6(address.to_v6(), prefix), &v6_);
}

Status TrustedProxies::FromList(const std::vector<std::string>& networks, std::string_view key,
                                TrustedProxies* out) {
  TrustedProxies parsed;
  for (size_t i = 0; i < networks.size(); ++i) {
    if (Status added = parsed.Add(networks[i]); !added.ok()) {
      return Status(StatusCode::INVALID_ARGUMENT,
                    std::string(key) + "[" + std::to_string(i) + "]: " + added.message());
    }
  }
  *out = std::move(parsed);
  return Status::Ok();
}

bool TrustedProxies::Trusts(const ip::address& address) const {
  if (address.is_v6() && address.to_v6().is_v4_mapped()) {
    return Trusts(ip::make_address_v4(ip::v4_mapped, address.to_v6()));
  }
  if (address.is_v4()) {
    for (const ip::network_v4& network : v4_) {
      if (ip::network_v4(address.to_v4(), network.prefix_length()).network() == network.network()) {
        return true;
      }
    }
    return false;
  }
  for (const ip::network_v6& network : v6_) {
    if (ip::network_v6(address.to_v6(), network.prefix_length()).network() == network.network()) {
      return true;
    }
  }
  return false;
}

}  // namespace ferry::http
