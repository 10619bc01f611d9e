// Which peers the server believes about whom they forward for, and what it makes of their
// X-Forwarded-For, for the address families and forms a loopback test server cannot be reached
// from (IPv6 proxies, a dual-stack listener's IPv4-mapped peers).
#include "http/trusted_proxies.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "http/forwarded_for.h"

namespace ferry::http {
namespace {

namespace ip = boost::asio::ip;

TrustedProxies Trusting(const std::vector<std::string>& networks) {
  TrustedProxies trusted;
  const Status status = TrustedProxies::FromList(networks, "trusted_proxies", &trusted);
  EXPECT_TRUE(status.ok()) << status;
  return trusted;
}

bool Trusts(const TrustedProxies& trusted, const char* address) {
  return trusted.Trusts(ip::make_address(address));
}

TEST(TrustedProxiesTest, ANetworkTrustsItsAddressesAndNoOthers) {
  const TrustedProxies trusted = Trusting({"10.0.0.0/8", "192.0.2.1", "2001:db8::/32", "::1/128"});
  EXPECT_TRUE(Trusts(trusted, "10.0.0.0"));
  EXPECT_TRUE(Trusts(trusted, "10.255.1.2"));
  EXPECT_FALSE(Trusts(trusted, "11.0.0.1"));
  EXPECT_TRUE(Trusts(trusted, "192.0.2.1"));  // a bare address is one host
  EXPECT_FALSE(Trusts(trusted, "192.0.2.2"));
  EXPECT_TRUE(Trusts(trusted, "2001:db8:1::5"));
  EXPECT_FALSE(Trusts(trusted, "2001:db9::1"));
  EXPECT_TRUE(Trusts(trusted, "::1"));
  EXPECT_FALSE(Trusts(trusted, "::2"));
  // A dual-stack listener's IPv4 peer is its IPv4 address.
  EXPECT_TRUE(Trusts(trusted, "::ffff:10.1.2.3"));
  EXPECT_FALSE(Trusts(trusted, "::ffff:11.1.2.3"));
  EXPECT_FALSE(Trusts(TrustedProxies(), "127.0.0.1"));
  const TrustedProxies every_v4 = Trusting({"0.0.0.0/0"});
  EXPECT_TRUE(Trusts(every_v4, "203.0.113.7"));
  EXPECT_FALSE(Trusts(every_v4, "2001:db8::1"));
}

TEST(TrustedProxiesTest, TheFirstBadEntryOfAListIsNamed) {
  TrustedProxies trusted;
  const Status status =
      TrustedProxies::FromList({"10.0.0.0/8", "fe80::1/64"}, "http.trusted_proxies", &trusted);
  EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.message(),
            "http.trusted_proxies[1]: 'fe80::1/64' is not a network: it has host bits set (the "
            "network is fe80::/64)");
}

std::string Client(const TrustedProxies& trusted, const char* peer,
                   std::vector<std::pair<std::string, std::string>> headers) {
  return ForwardedClient(trusted, ip::make_address(peer), headers);
}

TEST(ForwardedClientTest, IPv6AndIPv4MappedProxiesForwardToo) {
  const TrustedProxies trusted = Trusting({"::1/128", "127.0.0.1/32", "2001:db8::/32"});
  EXPECT_EQ(Client(trusted, "::1", {{"X-Forwarded-For", "203.0.113.7"}}), "203.0.113.7");
  EXPECT_EQ(Client(trusted, "::ffff:127.0.0.1", {{"X-Forwarded-For", "203.0.113.7"}}),
            "203.0.113.7");
  EXPECT_EQ(Client(trusted, "::1", {{"X-Forwarded-For", "2001:db9::7, 2001:db8::2"}}),
            "2001:db9::7");
  // Other headers are not the list; the peer is the client when nothing was forwarded.
  EXPECT_EQ(Client(trusted, "::1", {{"X-Real-IP", "203.0.113.7"}, {"Forwarded", "for=1.2.3.4"}}),
            "");
  EXPECT_EQ(Client(trusted, "::2", {{"X-Forwarded-For", "203.0.113.7"}}), "");
}

}  // namespace
}  // namespace ferry::http
