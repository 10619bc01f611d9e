#include "service/api_key_filter.h"

#include <charconv>

namespace ferry::shortlink {

namespace {

constexpr std::string_view kService = "ferry.shortlink.ShortLinkService";
constexpr std::string_view kTenantPrefix = "tenant:";

bool IsAdminMethod(std::string_view method) {
  return method == "CreateTenant" || method == "IssueApiKey" || method == "RevokeApiKey";
}

}  // namespace

Status ApiKeyFilter::OnCall(ServerCall& call) {
  AdmissionContext& context = call.context;
  if (context.service() != kService) return Status::Ok();
  // Resolve answers a link's target without a visit: for its tenant, or for the operator.
  const bool operator_too = context.method() == "Resolve" && keys_->AuthorizeAdmin(context).ok();
  if (IsAdminMethod(context.method()) || operator_too) {
    if (Status s = keys_->AuthorizeAdmin(context); !s.ok()) return s;
    context.set_verified_caller("admin");
    return Status::Ok();
  }
  int64_t tenant_id = 0;
  if (Status s = keys_->Authenticate(context, &tenant_id); !s.ok()) return s;
  context.set_verified_caller(std::string(kTenantPrefix) + std::to_string(tenant_id));
  return Status::Ok();
}

Status VerifiedTenant(const ServerContext& context, int64_t* tenant_id) {
  const std::string& caller = context.verified_caller();
  if (caller.starts_with(kTenantPrefix)) {
    const char* begin = caller.data() + kTenantPrefix.size();
    const char* end = caller.data() + caller.size();
    if (std::from_chars(begin, end, *tenant_id).ptr == end && *tenant_id > 0) return Status::Ok();
  }
  return Status(StatusCode::UNAUTHENTICATED,
                "no tenant verified for this call (the shortlink API-key filter did not run)");
}

Status VerifiedAdmin(const ServerContext& context) {
  if (context.verified_caller() == "admin") return Status::Ok();
  return Status(StatusCode::PERMISSION_DENIED, "this call needs the admin token");
}

}  // namespace ferry::shortlink
