#include "service/domain_table.h"

#include <algorithm>
#include <cctype>

#include "service/url_policy.h"

namespace ferry::shortlink {

Status DomainTable::Reload() {
  std::lock_guard lock(reload_mu_);
  std::vector<DomainRecord> records;
  if (Status s = store_->List(0, &records); !s.ok()) return s;
  auto domains = std::make_shared<Domains>();
  for (DomainRecord& r : records) domains->insert(std::move(r.domain));
  domains_.store(std::move(domains));
  return Status::Ok();
}

std::string DomainTable::DomainOfHost(std::string_view host) const {
  if (host.empty() || host.size() > 260 || host.front() == '[') return {};  // none, or IPv6
  host = host.substr(0, host.find(':'));
  if (!host.empty() && host.back() == '.') host.remove_suffix(1);
  std::string lower(host);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const std::shared_ptr<const Domains> domains = domains_.load();
  return domains->contains(lower) ? lower : std::string();
}

Status NormalizeDomain(std::string_view input, std::string* out) {
  std::string host;
  if (Status s = AsciiHost(input, &host); !s.ok()) {
    return Status(StatusCode::INVALID_ARGUMENT, "domain: " + s.message());
  }
  const bool has_letter =
      std::any_of(host.begin(), host.end(), [](unsigned char c) { return std::isalpha(c); });
  if (host.find('.') == std::string::npos || !has_letter || host.size() > 253) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "domain: '" + host + "' is not a domain name (e.g. go.example.com)");
  }
  *out = std::move(host);
  return Status::Ok();
}

}  // namespace ferry::shortlink
