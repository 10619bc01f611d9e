// The X-Forwarded-For walk (framework/src/http/forwarded_for.cc), which runs on every HTTP
// request from a trusted proxy. Every input: the walk ends in time linear in the headers' size
// (libFuzzer's timeout) and finds the client a plain reading of the rule finds: join the
// headers' lists in order, and from the right skip trusted addresses; the first untrusted one is
// the client, a malformed one ends the walk at the last good address.
//
// Input: a byte whose bits choose the trusted networks, a byte choosing the peer, then header
// lines separated by '\n': a line starting with an odd byte is an X-Forwarded-For (its name in
// some case style), one starting with an even byte another header; the rest of the line is the
// value.
#include <boost/asio/ip/address.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fuzz_check.h"
#include "http/forwarded_for.h"
#include "http/trusted_proxies.h"
#include "request_reader.h"

namespace {

namespace ip = boost::asio::ip;

constexpr const char* kNetworks[] = {"127.0.0.0/8", "10.0.0.0/8",   "::1/128",
                                     "fd00::/8",    "192.0.2.7/32", "0.0.0.0/0"};
constexpr const char* kPeers[] = {"127.0.0.1",   "10.1.2.3",       "::1", "fd00::5", "192.0.2.7",
                                  "203.0.113.9", "::ffff:10.9.9.9"};
constexpr const char* kNames[] = {"X-Forwarded-For", "x-forwarded-for", "X-FORWARDED-FOR"};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::optional<ip::address> Address(std::string_view text) {
  if (text.size() > 64 || text.find('\0') != std::string_view::npos) return std::nullopt;
  boost::system::error_code error;
  const ip::address address = ip::make_address(std::string(text), error);
  if (error) return std::nullopt;
  return address;
}

// The rule, read plainly: every entry of every X-Forwarded-For, left to right, then walked.
std::string Expected(const ferry::http::TrustedProxies& trusted, const ip::address& peer,
                     const std::vector<std::pair<std::string, std::string>>& headers) {
  if (trusted.empty() || !trusted.Trusts(peer)) return {};
  std::vector<std::string_view> entries;
  for (const auto& [name, value] : headers) {
    if (name != kNames[0] && name != kNames[1] && name != kNames[2]) continue;
    std::string_view list = value;
    for (size_t comma; (comma = list.find(',')) != std::string_view::npos;) {
      entries.push_back(Trim(list.substr(0, comma)));
      list.remove_prefix(comma + 1);
    }
    entries.push_back(Trim(list));
  }
  std::optional<ip::address> client;
  for (auto entry = entries.rbegin(); entry != entries.rend(); ++entry) {
    if (entry->empty()) continue;
    const std::optional<ip::address> address = Address(*entry);
    if (!address) break;
    client = address;
    if (!trusted.Trusts(*address)) break;
  }
  return client ? client->to_string() : std::string();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ferry::fuzz::RequestReader input(data, size);
  const uint8_t networks = input.Byte();
  ferry::http::TrustedProxies trusted;
  for (size_t i = 0; i < std::size(kNetworks); ++i) {
    if ((networks >> i) & 1) FERRY_FUZZ_CHECK(trusted.Add(kNetworks[i]).ok(), "%s", kNetworks[i]);
  }
  const ip::address peer = ip::make_address(kPeers[input.Byte() % std::size(kPeers)]);
  std::vector<std::pair<std::string, std::string>> headers;
  const std::string rest = input.Rest();
  std::string_view lines = rest;
  while (!lines.empty() && headers.size() < 64) {
    const size_t end = std::min(lines.find('\n'), lines.size());
    std::string_view line = lines.substr(0, end);
    lines.remove_prefix(std::min(end + 1, lines.size()));
    if (line.empty()) continue;
    const uint8_t kind = static_cast<uint8_t>(line.front());
    line.remove_prefix(1);
    headers.emplace_back((kind & 1) != 0 ? kNames[(kind >> 1) % std::size(kNames)] : "X-Real-IP",
                         std::string(line));
  }
  const std::string found = ferry::http::ForwardedClient(trusted, peer, headers);
  const std::string expected = Expected(trusted, peer, headers);
  FERRY_FUZZ_CHECK(found == expected, "the walk found '%s' where the rule says '%s'", found.c_str(),
                   expected.c_str());
  if (!found.empty()) FERRY_FUZZ_CHECK(Address(found), "'%s' is no address", found.c_str());
  return 0;
}
