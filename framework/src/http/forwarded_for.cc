#include "http/forwarded_for.h"

#include <strings.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>

namespace ferry::http {
namespace {

namespace ip = boost::asio::ip;

constexpr std::string_view kHeader = "X-Forwarded-For";
// Longer than any IPv6 address with a zone that a proxy would write; anything longer is not one.
constexpr size_t kMaxAddressChars = 64;

bool IsForwardedFor(std::string_view name) {
  return name.size() == kHeader.size() &&
         strncasecmp(name.data(), kHeader.data(), kHeader.size()) == 0;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Parsed from a copy on the stack: Asio's string_view overload copies into a std::string, an
// allocation per entry.
std::optional<ip::address> ParseAddress(std::string_view entry) {
  if (entry.size() > kMaxAddressChars || entry.find('\0') != std::string_view::npos) {
    return std::nullopt;
  }
  std::array<char, kMaxAddressChars + 1> text{};
  std::copy(entry.begin(), entry.end(), text.begin());
  boost::system::error_code error;
  const ip::address address = ip::make_address(text.data(), error);
  if (error) return std::nullopt;
  return address;
}

}  // namespace

std::string ForwardedClient(const TrustedProxies& trusted, const ip::address& peer,
                            std::span<const std::pair<std::string, std::string>> headers) {
  if (trusted.empty() || !trusted.Trusts(peer)) return {};
  std::optional<ip::address> client;  // the leftmost good address so far, all trusted
  for (auto header = headers.rbegin(); header != headers.rend(); ++header) {
    if (!IsForwardedFor(header->first)) continue;
    std::string_view list = header->second;
    while (true) {
      const size_t comma = list.rfind(',');
      // Empty elements are allowed in an HTTP list and mean nothing (RFC 9110, 5.6.1).
      if (const std::string_view entry =
              Trim(comma == std::string_view::npos ? list : list.substr(comma + 1));
          !entry.empty()) {
        const std::optional<ip::address> address = ParseAddress(entry);
        if (!address) return client ? client->to_string() : std::string();
        client = address;
        if (!trusted.Trusts(*address)) return address->to_string();
      }
      if (comma == std::string_view::npos) break;
      list = list.substr(0, comma);
    }
  }
  return client ? client->to_string() : std::string();
}

}  // namespace ferry::http
