#pragma once

#include <functional>
#include <string>
#include <vector>

#include "service/client_budget.h"
#include "service/code_generator.h"
#include "service/link_creator.h"
#include "service/link_resolver.h"
#include "service/tenant_keys.h"
#include "service/url_policy.h"
#include "service/visit_sink.h"
#include "shortlink.ferry.h"
#include "storage/stats_store.h"

namespace ferry::shortlink {

struct ShortLinkDeps {
  LinkStore* store = nullptr;
  LinkResolver* resolver = nullptr;
  CodeGenerator* codes = nullptr;
  TenantKeys* keys = nullptr;
  VisitSink* visits = nullptr;
  StatsStore* stats = nullptr;
  ClientBudget* not_found_budget = nullptr;  // the redirect's 404s per client
  UrlPolicy url_policy;
  std::string public_base_url;  // short_url = public_base_url + "/" + code
  int code_attempts = 8;        // generated codes tried against the UNIQUE code per create
  std::function<int64_t()> now_ms;
};

// What asking for a link costs it. kTake: a visit, counted against a limit (GET). kLook: none,
// and a limited link is not asked about in the database: HEAD and link-preview fetchers, answered
// with an interstitial page rather than the target. kInspect: none, the database telling
// exactly how many visits a limited link has left (Resolve).
enum class Ask { kTake, kLook, kInspect };

// The RPC surface and the redirect route `GET /{code}`.
class ShortLinkServiceImpl final : public ShortLinkServiceBase {
 public:
  explicit ShortLinkServiceImpl(ShortLinkDeps deps)
      : deps_(std::move(deps)),
        creator_(CreatorDeps{.store = deps_.store,
                             .resolver = deps_.resolver,
                             .codes = deps_.codes,
                             .url_policy = deps_.url_policy,
                             .code_attempts = deps_.code_attempts,
                             .now_ms = deps_.now_ms}) {}

  Status CreateLink(ServerContext& context, const CreateLinkRequest& request,
                    CreateLinkResponse* response) override;
  Status Resolve(ServerContext& context, const CodeRequest& request,
                 ResolveResponse* response) override;
  Status UpdateLink(ServerContext& context, const UpdateLinkRequest& request,
                    Link* response) override;
  Status DisableLink(ServerContext& context, const CodeRequest& request, Link* response) override;
  Status EnableLink(ServerContext& context, const CodeRequest& request, Link* response) override;
  Status DeleteLink(ServerContext& context, const CodeRequest& request,
                    DeleteLinkResponse* response) override;
  Status GetLink(ServerContext& context, const CodeRequest& request, Link* response) override;
  Status ListLinks(ServerContext& context, const ListLinksRequest& request,
                   ListLinksResponse* response) override;
  Status Stats(ServerContext& context, const StatsRequest& request,
               StatsResponse* response) override;
  Status CreateTenant(ServerContext& context, const CreateTenantRequest& request,
                      CreateTenantResponse* response) override;
  Status IssueApiKey(ServerContext& context, const IssueApiKeyRequest& request,
                     IssueApiKeyResponse* response) override;
  Status RevokeApiKey(ServerContext& context, const RevokeApiKeyRequest& request,
                      RevokeApiKeyResponse* response) override;

  std::vector<HttpRoute> http_routes() override;

  // What a redirect of `code` answers now. *limited (when given) says the link has a visit
  // limit: asked with kLook, such a link answers FOUND without its target unless it is known
  // used up.
  Status Decide(const std::string& code, Ask ask, ResolveResponse* answer, bool* limited = nullptr);

 private:
  void Redirect(const HttpRequest& request, HttpReply reply);
  HttpResponse RedirectAnswer(const HttpRequest& request);
  Status Change(ServerContext& context, const std::string& code, const LinkChange& change,
                Link* response);
  void Fill(const LinkRecord& record, Link* link) const;
  // Fill for each record, into add()'s messages, with the visits of links without a limit.
  Status FillAll(const std::vector<LinkRecord>& records, const std::function<Link*()>& add) const;
  std::string ShortUrl(const std::string& code) const;

  ShortLinkDeps deps_;
  LinkCreator creator_;
};

}  // namespace ferry::shortlink
