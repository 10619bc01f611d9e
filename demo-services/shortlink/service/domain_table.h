#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_set>

#include "ferry/codec/status.h"
#include "storage/domain_store.h"

namespace ferry::shortlink {

// The custom domains this provider serves, for the redirect to pick a link's domain from the
// request's Host without a query: read lock-free, replaced whole by Reload (every few seconds by
// the provider's jobs, so another provider's AddDomain shows here within that; at once after
// this provider's own changes).
class DomainTable {
 public:
  explicit DomainTable(DomainStore* store) : store_(store) {}

  Status Reload();
  // The custom domain `host` (a Host header: port, case and a trailing dot allowed) is, or ""
  // for any other host (the service's own name, an address): the service's own domain.
  std::string DomainOfHost(std::string_view host) const;

 private:
  using Domains = std::unordered_set<std::string>;
  DomainStore* const store_;
  // Reloads one at a time, each reading after the one before stored: a reload that read before
  // an AddDomain committed can never store its list after that AddDomain's own reload.
  std::mutex reload_mu_;
  std::atomic<std::shared_ptr<const Domains>> domains_{std::make_shared<const Domains>()};
};

// A domain as AddDomain takes it: a host name with a dot, IDN as punycode, lower case.
Status NormalizeDomain(std::string_view input, std::string* out);

}  // namespace ferry::shortlink
