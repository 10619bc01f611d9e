#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "ferry/codec/status.h"

namespace ferry::shortlink {

struct UrlPolicy {
  size_t max_length = 2048;
  // Hosts that are the service itself (the host of service.public_base_url, and
  // service.own_hosts): a link there would redirect to itself.
  std::vector<std::string> own_hosts;
};

// Checks a target URL and writes it normalised: only absolute http/https URLs with a host;
// no user information (http://good.example@evil.example), no control characters or spaces;
// an IDN host becomes its punycode (IDNA 2008, libidn2), host and scheme lower case, the
// default port dropped, percent-encoding normalised, an empty path "/". Parsed with Boost.URL.
// INVALID_ARGUMENT with the reason otherwise.
Status NormalizeTargetUrl(std::string_view input, const UrlPolicy& policy, std::string* out);

// A host name as it may be stored and compared: an IDN (decoded UTF-8) as its punycode, lower
// case, no trailing dot, only letters, digits, '-' and '.'; punycode as sent must decode.
// INVALID_ARGUMENT with the reason otherwise.
Status AsciiHost(std::string_view decoded_host, std::string* out);

// The lower-case host of an absolute URL ("" when it has none), for own_hosts.
std::string HostOf(std::string_view url);

}  // namespace ferry::shortlink
