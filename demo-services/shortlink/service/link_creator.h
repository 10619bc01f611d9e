#pragma once

#include <cstdint>
#include <functional>

#include "service/code_generator.h"
#include "service/link_resolver.h"
#include "service/url_policy.h"
#include "shortlink.pb.h"
#include "storage/domain_store.h"

namespace ferry::shortlink {

struct CreatorDeps {
  LinkStore* store = nullptr;
  LinkResolver* resolver = nullptr;
  CodeGenerator* codes = nullptr;
  DomainStore* domains = nullptr;
  UrlPolicy url_policy;
  int code_attempts = 8;  // generated codes tried against the UNIQUE code per create
  std::function<int64_t()> now_ms;
};

// CreateLink for a verified tenant: validates, answers a retry of a request id (or, with dedup,
// the tenant's link for the URL) with the first result, and otherwise inserts under the UNIQUE
// keys, which alone decide races: the loser of (tenant, request id) or (tenant, dedup hash)
// answers with the winner's row; a generated code taken by another link is drawn again; a
// custom code taken is ALREADY_EXISTS. Codes are unique per domain: a link's key is its domain
// and code (LinkKey). Fills the response's code, domain and outcome.
class LinkCreator {
 public:
  explicit LinkCreator(CreatorDeps deps) : deps_(std::move(deps)) {}
  Status Create(int64_t tenant_id, const CreateLinkRequest& request, CreateLinkResponse* response);

 private:
  Status InsertNew(int64_t tenant_id, const CreateLinkRequest& request, LinkRecord* record);
  // The request's domain, normalised; PERMISSION_DENIED unless the tenant added it.
  Status TenantDomain(int64_t tenant_id, const std::string& requested, std::string* domain);
  static void Answer(const std::string& key, CreateOutcome outcome, CreateLinkResponse* response);
  Status Existing(int64_t tenant_id, const CreateLinkRequest& request,
                  const std::string& fingerprint, const std::string& dedup_hash,
                  CreateLinkResponse* response, bool* found);

  CreatorDeps deps_;
};

}  // namespace ferry::shortlink
