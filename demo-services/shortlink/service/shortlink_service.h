#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "service/client_budget.h"
#include "service/code_generator.h"
#include "service/domain_table.h"
#include "service/link_creator.h"
#include "service/link_resolver.h"
#include "service/tenant_keys.h"
#include "service/url_policy.h"
#include "service/visit_sink.h"
#include "shortlink.ferry.h"
#include "storage/domain_store.h"
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
  DomainStore* domains = nullptr;
  DomainTable* domain_table = nullptr;  // the redirect's custom domains by Host
  UrlPolicy url_policy;
  // short_url = public_base_url + "/" + code; on a custom domain its scheme, the domain, code.
  std::string public_base_url;
  int code_attempts = 8;  // generated codes tried against the UNIQUE code per create
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
                             .domains = deps_.domains,
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
  Status ExportStats(ServerContext& context, const StatsRequest& request,
                     StatsCsv* response) override;
  Status BulkCreateLinks(ServerContext& context, const BulkCreateLinksRequest& request,
                         BulkCreateLinksResponse* response) override;
  Status AddDomain(ServerContext& context, const DomainRequest& request, Domain* response) override;
  Status ListDomains(ServerContext& context, const ListDomainsRequest& request,
                     ListDomainsResponse* response) override;
  Status RemoveDomain(ServerContext& context, const DomainRequest& request,
                      RemoveDomainResponse* response) override;
  Status CreateTenant(ServerContext& context, const CreateTenantRequest& request,
                      CreateTenantResponse* response) override;
  Status IssueApiKey(ServerContext& context, const IssueApiKeyRequest& request,
                     IssueApiKeyResponse* response) override;
  Status RevokeApiKey(ServerContext& context, const RevokeApiKeyRequest& request,
                      RevokeApiKeyResponse* response) override;

  std::vector<HttpRoute> http_routes() override;

  static constexpr int kMaxBulkLinks = 1000;
  static constexpr int kQrPngModulePixels = 8;

  // What a redirect of the link with key `code` (LinkKey) answers now. *limited (when given)
  // says the link has a visit limit: asked with kLook, such a link answers FOUND without its
  // target unless it is known used up. *forward_query: FOUND, and the visit's query goes on.
  Status Decide(const std::string& code, Ask ask, ResolveResponse* answer, bool* limited = nullptr,
                bool* forward_query = nullptr);

 private:
  // A link's counters as Stats and ExportStats read them.
  struct StatsRead {
    std::string key;
    std::string from_day, to_day;  // "YYYY-MM-DD"
    LinkStats stats;
  };

  // Decide for a link looked up already.
  Status DecideFor(const std::string& code, const CachedLink& link, Ask ask,
                   ResolveResponse* answer, bool* limited, bool* forward_query);
  // The key of the link a redirect asks for: its code on the domain its Host names.
  std::string RedirectKey(const HttpRequest& request) const;
  // The link's key from a request's domain (normalised) and code.
  Status KeyOf(const std::string& domain, const std::string& code, std::string* key) const;
  // The tenant's link; NOT_FOUND when there is none or it is another tenant's.
  Status FindOwned(int64_t tenant_id, const std::string& domain, const std::string& code,
                   LinkRecord* out) const;
  // Stats' and ExportStats' read of the counters of the tenant's link.
  Status ReadStats(ServerContext& context, const StatsRequest& request, StatsRead* out);
  // GET /{code}/qr: the short URL as a QR code, SVG or (?format=png) PNG; the link on the
  // Host's domain or ?domain=.
  HttpResponse QrCodeAnswer(const HttpRequest& request);
  // Whether answering `ask` of `link` takes the database (a visit limit's count).
  bool NeedsStore(const CachedLink& link, Ask ask) const;
  // The answer of `GET /{code}`; with `may_block` false (on the IO thread), nullopt unless it
  // comes from memory alone.
  std::optional<HttpResponse> Redirect(const HttpRequest& request, bool may_block);
  std::optional<HttpResponse> RedirectAnswer(const HttpRequest& request, bool may_block);
  Status Change(ServerContext& context, const std::string& domain, const std::string& code,
                const LinkChange& change, Link* response);
  void Fill(const LinkRecord& record, Link* link) const;
  // Fill for each record, into add()'s messages, with the visits of links without a limit.
  Status FillAll(const std::vector<LinkRecord>& records, const std::function<Link*()>& add) const;
  std::string ShortUrl(std::string_view domain, std::string_view code) const;

  ShortLinkDeps deps_;
  LinkCreator creator_;
};

}  // namespace ferry::shortlink
