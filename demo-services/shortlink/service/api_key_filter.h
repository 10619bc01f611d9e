#pragma once

#include <cstdint>
#include <string>

#include "ferry/framework/filter.h"
#include "service/tenant_keys.h"

namespace ferry::shortlink {

// The server filter in front of ShortLinkService: a tenant method's call must carry an API
// key, and the filter writes the key's tenant into the call's context as its verified caller
// ("tenant:<id>"), which is where handlers take the tenant from (no request field can choose
// it); an admin method's call must carry the admin token ("admin"). Resolve needs neither, and
// neither do the redirects, which are HTTP routes, not calls. Runs in OnCall, on the business
// pool, since a key is looked up in the database. Calls of other services pass untouched.
class ApiKeyFilter final : public ServerFilter {
 public:
  explicit ApiKeyFilter(const TenantKeys* keys) : keys_(keys) {}
  void Configure(config::ConfigReader&) override {}
  bool ObservesDone() const override { return false; }
  Status OnCall(ServerCall& call) override;

 private:
  const TenantKeys* const keys_;
};

// The tenant the filter verified for this call. UNAUTHENTICATED when it did not run, so a
// server without the filter refuses tenant calls instead of trusting anyone.
Status VerifiedTenant(const ServerContext& context, int64_t* tenant_id);
// PERMISSION_DENIED unless the filter verified the admin token for this call.
Status VerifiedAdmin(const ServerContext& context);

}  // namespace ferry::shortlink
