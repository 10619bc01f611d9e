// AddDomain, ListDomains and RemoveDomain of ShortLinkServiceImpl: a tenant's custom domains.
#include "service/api_key_filter.h"
#include "service/domain_table.h"
#include "service/shortlink_service.h"

namespace ferry::shortlink {

namespace {

void FillDomain(const DomainRecord& record, Domain* out) {
  out->set_domain(record.domain);
  out->set_created_at_ms(record.created_at_ms);
}

}  // namespace

Status ShortLinkServiceImpl::AddDomain(ServerContext& context, const DomainRequest& request,
                                       Domain* response) {
  int64_t tenant_id = 0;
  if (Status s = VerifiedTenant(context, &tenant_id); !s.ok()) return s;
  std::string domain;
  if (Status s = NormalizeDomain(request.domain(), &domain); !s.ok()) return s;
  for (const std::string& own : deps_.url_policy.own_hosts) {
    if (domain == own) {
      return Status(StatusCode::INVALID_ARGUMENT, "domain: " + domain + " is the service's own");
    }
  }
  DomainRecord record;
  if (Status s = deps_.domains->Add(tenant_id, domain, deps_.now_ms(), &record); !s.ok()) return s;
  FillDomain(record, response);
  return deps_.domain_table->Reload();
}

Status ShortLinkServiceImpl::ListDomains(ServerContext& context, const ListDomainsRequest&,
                                         ListDomainsResponse* response) {
  int64_t tenant_id = 0;
  if (Status s = VerifiedTenant(context, &tenant_id); !s.ok()) return s;
  std::vector<DomainRecord> records;
  if (Status s = deps_.domains->List(tenant_id, &records); !s.ok()) return s;
  for (const DomainRecord& record : records) FillDomain(record, response->add_domains());
  return Status::Ok();
}

Status ShortLinkServiceImpl::RemoveDomain(ServerContext& context, const DomainRequest& request,
                                          RemoveDomainResponse*) {
  int64_t tenant_id = 0;
  if (Status s = VerifiedTenant(context, &tenant_id); !s.ok()) return s;
  std::string domain;
  if (Status s = NormalizeDomain(request.domain(), &domain); !s.ok()) return s;
  if (Status s = deps_.domains->Remove(tenant_id, domain); !s.ok()) return s;
  return deps_.domain_table->Reload();
}

}  // namespace ferry::shortlink
