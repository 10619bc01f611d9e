#include "service/link_creator.h"

#include "service/code_rules.h"
#include "service/domain_table.h"
#include "service/link_attributes.h"
#include "service/sha256_hex.h"
#include "storage/link_key.h"

namespace ferry::shortlink {

namespace {
constexpr size_t kMaxRequestId = 128;
}  // namespace

void LinkCreator::Answer(const std::string& key, CreateOutcome outcome,
                         CreateLinkResponse* response) {
  response->set_code(std::string(CodeOfKey(key)));
  response->set_domain(std::string(DomainOfKey(key)));
  response->set_outcome(outcome);
}

Status LinkCreator::TenantDomain(int64_t tenant_id, const std::string& requested,
                                 std::string* domain) {
  domain->clear();
  if (requested.empty()) return Status::Ok();
  if (Status s = NormalizeDomain(requested, domain); !s.ok()) return s;
  int64_t owner = 0;
  if (Status s = deps_.domains->OwnerOf(*domain, &owner); !s.ok()) return s;
  if (owner != tenant_id) {
    return Status(StatusCode::PERMISSION_DENIED,
                  "domain " + *domain + " is not one of this tenant's (AddDomain)");
  }
  return Status::Ok();
}

Status LinkCreator::Create(int64_t tenant_id, const CreateLinkRequest& request,
                           CreateLinkResponse* response) {
  if (request.tenant_id() != 0 && request.tenant_id() != tenant_id) {
    return Status(
        StatusCode::PERMISSION_DENIED,
        "tenant_id " + std::to_string(request.tenant_id()) + " is not the tenant of this API key");
  }
  if (request.request_id().empty() || request.request_id().size() > kMaxRequestId) {
    return Status(StatusCode::INVALID_ARGUMENT, "request_id: required, at most 128 bytes");
  }
  if (!request.custom_code().empty()) {
    if (Status s = ValidateCustomCode(request.custom_code()); !s.ok()) return s;
  }
  if (request.max_visits() < 0) {
    return Status(StatusCode::INVALID_ARGUMENT, "max_visits: 0 (no limit) or more");
  }
  const int64_t now = deps_.now_ms();
  if (request.expires_at_ms() != 0 && request.expires_at_ms() <= now) {
    return Status(StatusCode::INVALID_ARGUMENT, "expires_at_ms: in the past");
  }
  std::string url;
  if (Status s = NormalizeTargetUrl(request.long_url(), deps_.url_policy, &url); !s.ok()) return s;
  std::string domain;
  if (Status s = TenantDomain(tenant_id, request.domain(), &domain); !s.ok()) return s;
  if (Status s = ValidateTitle(request.title()); !s.ok()) return s;
  std::vector<std::string> tags;
  if (Status s = NormalizeTags(request.tags(), &tags); !s.ok()) return s;
  const bool forward_query = !request.has_forward_query() || request.forward_query();
  std::string expired_url;
  if (!request.expired_url().empty()) {
    if (Status s = NormalizeTargetUrl(request.expired_url(), deps_.url_policy, &expired_url);
        !s.ok()) {
      return Status(s.code(), "expired_url: " + s.message());
    }
  }
  // What the link is made of: the same for a retry, and for dedup the link "for this URL".
  // Parts added since the first version only when set, so earlier links keep their hashes.
  std::string options = url + "\n" + request.custom_code() + "\n" +
                        std::to_string(request.expires_at_ms()) + "\n" +
                        std::to_string(request.max_visits()) + "\n" + expired_url;
  if (!domain.empty()) options += "\ndomain " + domain;
  if (!forward_query) options += "\nno query";
  std::string described;  // title and tags: a retry must match them, dedup ignores them
  if (!request.title().empty()) described += "\ntitle " + request.title();
  for (const std::string& tag : tags) described += "\ntag " + tag;
  const std::string fingerprint =
      Sha256Hex(options + "\n" + (request.dedup() ? "1" : "0") + described);
  const std::string dedup_hash = request.dedup() ? Sha256Hex(options) : std::string();

  // A retry, or the tenant's link for this URL: answered without inserting.
  bool found = false;
  if (Status s = Existing(tenant_id, request, fingerprint, dedup_hash, response, &found);
      !s.ok() || found) {
    return s;
  }
  LinkRecord record;
  record.tenant_id = tenant_id;
  record.request_id = request.request_id();
  record.fingerprint = fingerprint;
  record.long_url = url;
  record.dedup_hash = dedup_hash;
  record.created_at_ms = now;
  record.expires_at_ms = request.expires_at_ms();
  record.max_visits = request.max_visits();
  record.expired_url = expired_url;
  record.domain = domain;
  record.forward_query = forward_query;
  record.title = request.title();
  record.tags = std::move(tags);
  Status s = InsertNew(tenant_id, request, &record);
  if (s.code() == StatusCode::ALREADY_EXISTS) {
    // Another insert won the (tenant, request id) or the dedup key: its row is the answer.
    if (Status again = Existing(tenant_id, request, fingerprint, dedup_hash, response, &found);
        !again.ok() || found) {
      return again;
    }
    return s;
  }
  if (!s.ok()) return s;
  deps_.resolver->Publish(record);
  Answer(record.code, CREATED, response);
  return Status::Ok();
}

Status LinkCreator::Existing(int64_t tenant_id, const CreateLinkRequest& request,
                             const std::string& fingerprint, const std::string& dedup_hash,
                             CreateLinkResponse* response, bool* found) {
  std::optional<LinkRecord> existing;
  if (Status s = deps_.store->FindByRequest(tenant_id, request.request_id(), &existing); !s.ok()) {
    return s;
  }
  if (existing) {
    if (existing->fingerprint != fingerprint) {
      return Status(StatusCode::INVALID_ARGUMENT,
                    "request_id '" + request.request_id() + "' already created link " +
                        existing->code +
                        " with other parameters; use a new request_id for another link");
    }
    *found = true;
    Answer(existing->code, SAME_REQUEST, response);
    return Status::Ok();
  }
  if (dedup_hash.empty()) return Status::Ok();
  if (Status s = deps_.store->FindByDedup(tenant_id, dedup_hash, &existing); !s.ok()) return s;
  if (!existing) return Status::Ok();
  // Changes release the hash themselves; a link that expired or ran out of visits is released
  // here, so that the create makes a working link.
  const bool expired = existing->expires_at_ms != 0 && existing->expires_at_ms <= deps_.now_ms();
  const bool used_up = existing->max_visits > 0 && existing->visits >= existing->max_visits;
  if (existing->disabled || existing->purged || expired || used_up) {
    return deps_.store->ReleaseDedup(existing->code, dedup_hash);
  }
  *found = true;
  Answer(existing->code, SAME_URL, response);
  return Status::Ok();
}

Status LinkCreator::InsertNew(int64_t tenant_id, const CreateLinkRequest& request,
                              LinkRecord* record) {
  if (!request.custom_code().empty()) {
    record->code = LinkKey(record->domain, request.custom_code());
    Status s = deps_.store->InsertLink(*record);
    if (s.code() != StatusCode::ALREADY_EXISTS) return s;
    std::optional<LinkRecord> owner;
    if (Status f = deps_.store->FindByCode(record->code, &owner); !f.ok()) return f;
    if (owner && !(owner->tenant_id == tenant_id && owner->request_id == request.request_id())) {
      return Status(StatusCode::ALREADY_EXISTS, "custom_code '" + request.custom_code() +
                                                    "' is taken on this domain (codes "
                                                    "are never reused)");
    }
    return s;  // the request id or dedup key: the caller answers with that row
  }
  for (int attempt = 0; attempt < deps_.code_attempts; ++attempt) {
    std::string code;
    if (Status s = deps_.codes->Next(&code); !s.ok()) return s;
    record->code = LinkKey(record->domain, code);
    Status s = deps_.store->InsertLink(*record);
    if (s.code() != StatusCode::ALREADY_EXISTS) return s;
    std::optional<LinkRecord> owner;
    if (Status f = deps_.store->FindByCode(record->code, &owner); !f.ok()) return f;
    // The code belongs to another link (a custom code, a random collision): draw another.
    if (!owner || (owner->tenant_id == tenant_id && owner->request_id == request.request_id())) {
      return s;
    }
  }
  return Status(StatusCode::UNAVAILABLE,
                "no free code after " + std::to_string(deps_.code_attempts) +
                    " attempts; configure longer random codes (service.codes.length)");
}

}  // namespace ferry::shortlink
