#include <algorithm>
#include <memory>
#include <string>
#include <string_view>

#include "ferry/codec/extension_registry.h"
#include "ferry/framework/logging.h"
#include "ferry/framework/registry.h"

namespace ferry {
namespace {

std::string KnownSchemes() {
  auto names = ExtensionRegistry::Instance().Names<Registry>();
  if (names.empty()) return "none; link ferry::registry";
  std::string joined;
  for (const auto& name : names) joined += (joined.empty() ? "" : ", ") + name;
  return joined;
}

// RFC 3986: a letter, then letters, digits, '+', '-' or '.'.
bool IsScheme(std::string_view text) {
  auto is_alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  return !text.empty() && is_alpha(text.front()) &&
         std::all_of(text.begin(), text.end(), [&](char c) {
           return is_alpha(c) || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
         });
}

}  // namespace

Status OpenRegistry(const RegistryOptions& options, std::shared_ptr<Registry>* out) {
  const size_t separator = options.url.find("://");
  const std::string scheme = options.url.substr(0, separator);
  if (separator == std::string::npos || !IsScheme(scheme)) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "registry url '" + RedactedUrl(options.url) +
                      "' is not <scheme>://<addresses> (schemes: " + KnownSchemes() + ")");
  }
  auto registry = ExtensionRegistry::Instance().Create<Registry>(scheme);
  if (!registry) {
    return Status(StatusCode::INVALID_ARGUMENT, "registry url '" + RedactedUrl(options.url) +
                                                    "': unknown scheme '" + scheme +
                                                    "' (schemes: " + KnownSchemes() + ")");
  }
  Status status = registry->Start(options);
  if (!status.ok()) return status;
  *out = std::move(registry);
  return Status::Ok();
}

}  // namespace ferry
