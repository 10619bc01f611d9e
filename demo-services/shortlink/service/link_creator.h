#pragma once

#include <cstdint>
#include <functional>

#include "service/code_generator.h"
#include "service/link_resolver.h"
#include "service/url_policy.h"
#include "shortlink.pb.h"

namespace ferry::shortlink {

struct CreatorDeps {
  LinkStore* store = nullptr;
  LinkResolver* resolver = nullptr;
  CodeGenerator* codes = nullptr;
  UrlPolicy url_policy;
  int code_attempts = 8;  // generated codes tried against the UNIQUE code per create
  std::function<int64_t()> now_ms;
};

// CreateLink for a verified tenant: validates, answers a retry of a request id (or, with dedup,
// the tenant's link for the URL) with the first result, and otherwise inserts under the UNIQUE
// keys, which alone decide races: the loser of (tenant, request id) or (tenant, dedup hash)
// answers with the winner's row; a generated code taken by another link is drawn again; a
// custom code taken is ALREADY_EXISTS. Fills the response's code and outcome.
class LinkCreator {
 public:
  explicit LinkCreator(CreatorDeps deps) : deps_(std::move(deps)) {}
  Status Create(int64_t tenant_id, const CreateLinkRequest& request, CreateLinkResponse* response);

 private:
  Status InsertNew(int64_t tenant_id, const CreateLinkRequest& request, LinkRecord* record);
  Status Existing(int64_t tenant_id, const CreateLinkRequest& request,
                  const std::string& fingerprint, const std::string& dedup_hash,
                  CreateLinkResponse* response, bool* found);

  CreatorDeps deps_;
};

}  // namespace ferry::shortlink
