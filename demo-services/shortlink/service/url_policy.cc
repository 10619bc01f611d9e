#include "service/url_policy.h"

#include <idn2.h>

#include <algorithm>
#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>

namespace ferry::shortlink {

namespace {

Status Refused(std::string reason) {
  return Status(StatusCode::INVALID_ARGUMENT, "long_url: " + std::move(reason));
}

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// Browsers send non-ASCII characters percent-encoded; so does this, before parsing, so that
// "https://bücher.example/ä" parses and its host can be converted.
std::string PercentEncodeNonAscii(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace

Status AsciiHost(std::string_view decoded_host, std::string* out) {
  if (decoded_host.find('\0') != std::string_view::npos) {
    return Refused("the host has a NUL character");
  }
  const bool ascii = std::all_of(decoded_host.begin(), decoded_host.end(),
                                 [](unsigned char c) { return c < 0x80; });
  std::string host = ascii ? Lower(decoded_host) : std::string(decoded_host);
  if (!ascii) {
    char* converted = nullptr;
    const int rc =
        idn2_to_ascii_8z(host.c_str(), &converted, IDN2_NONTRANSITIONAL | IDN2_NFC_INPUT);
    if (rc != IDN2_OK) {
      return Refused("host '" + host + "' is not a valid internationalised domain name (" +
                     idn2_strerror(rc) + ")");
    }
    host = Lower(converted);
    idn2_free(converted);
  }
  if (ascii && (host.starts_with("xn--") || host.find(".xn--") != std::string::npos)) {
    // Punycode as sent: it must decode, or it is not a name anyone registered.
    char* decoded = nullptr;
    const int rc = idn2_to_unicode_8z8z(host.c_str(), &decoded, 0);
    if (rc != IDN2_OK) {
      return Refused("host '" + host + "' is not a valid internationalised domain name (" +
                     idn2_strerror(rc) + ")");
    }
    idn2_free(decoded);
  }
  if (!host.empty() && host.back() == '.') host.pop_back();
  if (host.empty()) return Refused("the URL has an empty host");
  for (size_t i = 0; i < host.size(); ++i) {
    const char c = host[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
    if (!ok) return Refused("host '" + host + "' has a character a host name cannot have");
  }
  *out = std::move(host);
  return Status::Ok();
}

std::string HostOf(std::string_view url) {
  auto parsed = boost::urls::parse_uri(url);
  if (!parsed) return {};
  return Lower(parsed->encoded_host().decode());
}

Status NormalizeTargetUrl(std::string_view input, const UrlPolicy& policy, std::string* out) {
  if (input.empty()) return Refused("empty");
  if (input.size() > policy.max_length) {
    return Refused("longer than " + std::to_string(policy.max_length) + " bytes");
  }
  for (unsigned char c : input) {
    if (c <= 0x20 || c == 0x7f) return Refused("contains a space or a control character");
  }
  const std::string encoded = PercentEncodeNonAscii(input);
  auto parsed = boost::urls::parse_uri(encoded);
  if (!parsed) {
    return Refused("not an absolute URL (" + parsed.error().message() +
                   "); write it as http://host/... or https://host/...");
  }
  boost::urls::url url(*parsed);
  const std::string scheme = Lower(url.scheme());
  if (scheme != "http" && scheme != "https") {
    return Refused("scheme '" + scheme + "' is not allowed; only http and https");
  }
  if (!url.has_authority() || url.encoded_host().empty()) return Refused("the URL has no host");
  if (url.has_userinfo()) {
    return Refused(
        "user information before the host (user@host) is not allowed: it hides "
        "which host the link goes to");
  }
  std::string host;
  switch (url.host_type()) {
    case boost::urls::host_type::name:
      if (Status s = AsciiHost(url.encoded_host().decode(), &host); !s.ok()) return s;
      break;
    case boost::urls::host_type::ipv4:
      host = std::string(url.encoded_host());
      break;
    case boost::urls::host_type::ipv6:
      host = Lower(url.encoded_host_address());
      host = "[" + host + "]";
      break;
    default:
      return Refused("host '" + std::string(url.encoded_host()) + "' is not supported");
  }
  for (const std::string& own : policy.own_hosts) {
    if (host == own) return Refused("host '" + host + "' is this short-link service");
  }
  // Scheme and host only: Boost.URL 1.81's path normalisation decodes %2F into '/', which
  // changes the path the target sees.
  url.normalize_scheme();
  std::string result = scheme + "://" + host;
  if (url.has_port()) {
    const std::string port(url.port());
    const bool default_port =
        port.empty() || (scheme == "http" && port == "80") || (scheme == "https" && port == "443");
    if (!default_port) result += ":" + port;
  }
  const std::string_view path = url.encoded_path();
  result += path.empty() ? std::string_view("/") : path;
  if (url.has_query()) result += "?" + std::string(url.encoded_query());
  if (url.has_fragment()) result += "#" + std::string(url.encoded_fragment());
  if (result.size() > policy.max_length) {
    return Refused("longer than " + std::to_string(policy.max_length) + " bytes once normalised");
  }
  *out = std::move(result);
  return Status::Ok();
}

}  // namespace ferry::shortlink
