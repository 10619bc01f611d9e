#include "service/shortlink_service.h"

#include <algorithm>
#include <charconv>
#include <map>

#include "service/api_key_filter.h"
#include "service/code_rules.h"
#include "service/domain_table.h"
#include "service/link_attributes.h"
#include "service/shortlink_metrics.h"
#include "service/visit_facts.h"
#include "service/web_page.h"
#include "storage/link_key.h"

namespace ferry::shortlink {

namespace {

HttpResponse HtmlPage(int status, const std::string& title, const std::string& text) {
  HttpResponse response;
  response.status = status;
  response.Set("Content-Type", "text/html; charset=utf-8");
  response.body = "<!doctype html><html><head><meta charset=\"utf-8\"><title>" +
                  std::to_string(status) + " " + title + "</title></head><body><h1>" + title +
                  "</h1><p>" + text + "</p></body></html>\n";
  return response;
}

// The target with the visit's query string appended (before a fragment), as Shlink forwards it.
std::string WithQuery(std::string target, std::string_view query) {
  if (query.empty()) return target;
  const size_t hash = std::min(target.find('#'), target.size());
  const bool has_query = target.find('?') < hash;
  target.insert(hash, 1, has_query ? '&' : '?');
  target.insert(hash + 1, query);
  return target;
}

// A route answering one document, from the IO thread.
HttpRoute Document(std::string pattern, std::string content_type, std::string cache_control,
                   std::string_view body, void (*decorate)(HttpResponse*) = nullptr) {
  return HttpRoute{.method = "GET",
                   .pattern = std::move(pattern),
                   .handler =
                       [=](const HttpRequest&, HttpReply reply) {
                         HttpResponse response;
                         response.Set("Content-Type", content_type);
                         response.Set("Cache-Control", cache_control);
                         if (decorate) decorate(&response);
                         response.body = std::string(body);
                         reply(std::move(response));
                       },
                   .on_io_thread = true};
}

HttpResponse Found(std::string location) {
  HttpResponse response;
  response.status = 302;
  response.Set("Location", std::move(location));
  return response;
}

}  // namespace

std::string ShortLinkServiceImpl::ShortUrl(std::string_view domain, std::string_view code) const {
  if (domain.empty()) return deps_.public_base_url + "/" + std::string(code);
  const std::string_view base = deps_.public_base_url;
  const std::string_view scheme = base.substr(0, base.find("://"));
  return std::string(scheme) + "://" + std::string(domain) + "/" + std::string(code);
}

Status ShortLinkServiceImpl::KeyOf(const std::string& domain, const std::string& code,
                                   std::string* key) const {
  std::string normalized;
  if (!domain.empty()) {
    if (Status s = NormalizeDomain(domain, &normalized); !s.ok()) return s;
  }
  *key = LinkKey(normalized, code);
  return Status::Ok();
}

Status ShortLinkServiceImpl::FindOwned(int64_t tenant_id, const std::string& domain,
                                       const std::string& code, LinkRecord* out) const {
  std::string key;
  if (Status s = KeyOf(domain, code, &key); !s.ok()) return s;
  std::optional<LinkRecord> record;
  if (Status s = deps_.store->FindByCode(key, &record); !s.ok()) return s;
  if (!record || record->tenant_id != tenant_id) {
    return Status(StatusCode::NOT_FOUND, "no link " + key + " of this tenant");
  }
  *out = std::move(*record);
  return Status::Ok();
}

void ShortLinkServiceImpl::Fill(const LinkRecord& r, Link* link) const {
  const std::string_view code = CodeOfKey(r.code);
  link->set_code(std::string(code));
  link->set_domain(r.domain);
  link->set_short_url(ShortUrl(r.domain, code));
  link->set_long_url(r.long_url);
  link->set_created_at_ms(r.created_at_ms);
  link->set_expires_at_ms(r.expires_at_ms);
  link->set_max_visits(r.max_visits);
  link->set_visits(r.visits);
  link->set_disabled(r.disabled);
  link->set_request_id(r.request_id);
  link->set_expired_url(r.expired_url);
  link->set_deleted(r.deleted_at_ms != 0);
  link->set_forward_query(r.forward_query);
  link->set_title(r.title);
  for (const std::string& tag : r.tags) link->add_tags(tag);
}

Status ShortLinkServiceImpl::FillAll(const std::vector<LinkRecord>& records,
                                     const std::function<Link*()>& add) const {
  // A link without a limit has no admission counter: its visits are what its statistics counted.
  std::vector<std::string> unlimited;
  for (const LinkRecord& r : records) {
    if (r.max_visits == 0) unlimited.push_back(r.code);
  }
  std::map<std::string, int64_t> counted;
  if (Status s = deps_.stats->TotalVisits(unlimited, &counted); !s.ok()) return s;
  for (const LinkRecord& r : records) {
    Link* link = add();
    Fill(r, link);
    if (r.max_visits == 0) link->set_visits(counted[r.code]);
  }
  return Status::Ok();
}

Status ShortLinkServiceImpl::CreateLink(ServerContext& context, const CreateLinkRequest& request,
                                        CreateLinkResponse* response) {
  int64_t tenant_id = 0;
  if (Status s = VerifiedTenant(context, &tenant_id); !s.ok()) return s;
  if (Status s = creator_.Create(tenant_id, request, response); !s.ok()) return s;
  response->set_short_url(ShortUrl(response->domain(), response->code()));
  return Status::Ok();
}

Status ShortLinkServiceImpl::BulkCreateLinks(ServerContext& context,
                                             const BulkCreateLinksRequest& request,
                                             BulkCreateLinksResponse* response) {
  int64_t tenant_id = 0;
  if (Status s = VerifiedTenant(context, &tenant_id); !s.ok()) return s;
  if (request.links_size() == 0 || request.links_size() > kMaxBulkLinks) {
    return Status(StatusCode::INVALID_ARGUMENT, "links: 1 to 1000 per call");
  }
  for (const CreateLinkRequest& item : request.links()) {
    BulkCreateResult* result = response->add_results();
    Status s = creator_.Create(tenant_id, item, result->mutable_link());
    if (s.ok()) {
      result->mutable_link()->set_short_url(
          ShortUrl(result->link().domain(), result->link().code()));
    } else {
      result->clear_link();
      result->set_status_code(static_cast<int32_t>(s.code()));
      result->set_error(s.message());
    }
  }
  return Status::Ok();
}

bool ShortLinkServiceImpl::NeedsStore(const CachedLink& link, Ask ask) const {
  return ask != Ask::kLook && link.max_visits > 0 && !link.exhausted && !link.deleted &&
         !link.disabled && !link.purged &&
         (link.expires_at_ms == 0 || link.expires_at_ms > deps_.now_ms());
}

Status ShortLinkServiceImpl::Decide(const std::string& code, Ask ask, ResolveResponse* answer,
                                    bool* limited, bool* forward_query) {
  answer->set_outcome(NOT_FOUND);
  if (limited) *limited = false;
  if (!LooksLikeCode(std::string(CodeOfKey(code)))) return Status::Ok();
  LinkResolver::LinkPtr link;
  if (Status s = deps_.resolver->Lookup(code, &link); !s.ok()) return s;
  if (!link) return Status::Ok();
  return DecideFor(code, *link, ask, answer, limited, forward_query);
}

Status ShortLinkServiceImpl::DecideFor(const std::string& code, const CachedLink& link, Ask ask,
                                       ResolveResponse* answer, bool* limited,
                                       bool* forward_query) {
  const int64_t now = deps_.now_ms();
  if (link.deleted) {
    answer->set_outcome(DELETED);
  } else if (link.disabled) {
    answer->set_outcome(DISABLED);
  } else if (link.purged || (link.expires_at_ms != 0 && link.expires_at_ms <= now)) {
    answer->set_outcome(EXPIRED);
    answer->set_long_url(link.expired_url);
  } else if (link.max_visits > 0) {
    if (limited) *limited = true;
    if (link.exhausted) {
      answer->set_outcome(EXHAUSTED);
    } else if (ask == Ask::kTake) {
      // The database decides, one conditional UPDATE per counted visit: exactly K pass.
      bool admitted = false;
      if (Status s = deps_.store->AdmitVisit(code, now, &admitted); !s.ok()) return s;
      if (!admitted) deps_.resolver->MarkExhausted(code, link);
      answer->set_outcome(admitted ? FOUND : EXHAUSTED);
    } else if (ask == Ask::kInspect) {
      std::optional<LinkRecord> record;
      if (Status s = deps_.store->FindByCode(code, &record); !s.ok()) return s;
      answer->set_outcome(record && record->visits < record->max_visits ? FOUND : EXHAUSTED);
    } else {
      answer->set_outcome(FOUND);
      return Status::Ok();  // a look at a limited link is not shown the target
    }
  } else {
    answer->set_outcome(FOUND);
  }
  if (answer->outcome() == FOUND) {
    answer->set_long_url(link.long_url);
    if (forward_query) *forward_query = link.forward_query;
  }
  return Status::Ok();
}

std::string ShortLinkServiceImpl::RedirectKey(const HttpRequest& request) const {
  return LinkKey(deps_.domain_table->DomainOfHost(request.Header("Host")), request.Param("code"));
}

Status ShortLinkServiceImpl::Resolve(ServerContext& context, const CodeRequest& request,
                                     ResolveResponse* response) {
  if (VerifiedAdmin(context).ok()) {
    std::string key;
    if (Status s = KeyOf(request.domain(), request.code(), &key); !s.ok()) return s;
    return Decide(key, Ask::kInspect, response);
  }
  int64_t tenant_id = 0;
  if (Status s = VerifiedTenant(context, &tenant_id); !s.ok()) return s;
  // Another tenant's link is answered as no link: Resolve is no oracle of other tenants' codes.
  LinkRecord record;
  if (Status s = FindOwned(tenant_id, request.domain(), request.code(), &record); !s.ok()) {
    if (s.code() != StatusCode::NOT_FOUND) return s;
    response->set_outcome(NOT_FOUND);
    return Status::Ok();
  }
  return Decide(record.code, Ask::kInspect, response);
}

std::optional<HttpResponse> ShortLinkServiceImpl::Redirect(const HttpRequest& request,
                                                           bool may_block) {
  std::optional<HttpResponse> response = RedirectAnswer(request, may_block);
  if (response) response->Set("Cache-Control", "private, no-store");
  return response;
}

std::optional<HttpResponse> ShortLinkServiceImpl::RedirectAnswer(const HttpRequest& request,
                                                                 bool may_block) {
  const std::string code = RedirectKey(request);
  const bool head = request.method() == "HEAD";
  const std::string_view user_agent = request.Header("User-Agent");
  const int64_t now = deps_.now_ms();
  if (deps_.not_found_budget->Exhausted(request.client_address(), now)) {
    // Walking codes: this client's 404s ran out, and it learns nothing more for a while.
    Metrics().limited_redirects->Increment();
    HttpResponse page = HtmlPage(429, "Too many unknown links", "Try again in a minute.");
    page.Set("Retry-After", "60");
    return page;
  }
  // Chat and mail preview fetchers (Slack, WhatsApp, Outlook Safe Links) open every link they
  // see; a limited link keeps its visits for the person.
  const Ask ask = head || IsPreviewFetcher(user_agent) ? Ask::kLook : Ask::kTake;
  ResolveResponse answer;
  bool limited = false;
  bool forward_query = false;
  Status decided;
  if (may_block) {
    decided = Decide(code, ask, &answer, &limited, &forward_query);
  } else {
    // From the IO thread: only a hot link whose answer needs no database count.
    const LinkResolver::LinkPtr link =
        LooksLikeCode(std::string(request.Param("code"))) ? deps_.resolver->Hot(code) : nullptr;
    if (!link || NeedsStore(*link, ask)) return std::nullopt;
    decided = DecideFor(code, *link, ask, &answer, &limited, &forward_query);
  }
  if (!decided.ok()) {
    HttpResponse page =
        HtmlPage(503, "Unavailable", "The link service cannot answer now; try again.");
    page.Set("Retry-After", "1");
    return page;
  }
  if (answer.outcome() == FOUND && limited && ask == Ask::kLook) {
    // Neither counted nor shown the target: a page saying the link works, to be opened in a
    // browser.
    HttpResponse page = HtmlPage(200, "Short link",
                                 "This link can be opened a limited number of times. Open it in "
                                 "your browser to go on.");
    page.Set("X-Robots-Tag", "noindex, nofollow");
    return page;
  }
  if (answer.outcome() == FOUND) {
    Metrics().redirects->Increment();
    if (!head) {
      deps_.visits->Record(Visit{.code = code,
                                 .at_ms = now,
                                 .client_address = std::string(request.client_address()),
                                 .user_agent = std::string(user_agent),
                                 .referrer = std::string(request.Header("Referer"))});
    }
    std::string target = std::move(*answer.mutable_long_url());
    return Found(forward_query ? WithQuery(std::move(target), request.query()) : std::move(target));
  }
  Metrics().refused_redirects->Increment();
  switch (answer.outcome()) {
    case EXPIRED:
      // The link's expired URL, when it has one: no visit of the link.
      if (!answer.long_url().empty()) return Found(std::move(*answer.mutable_long_url()));
      return HtmlPage(410, "Link expired", "This short link has expired.");
    case DELETED:
      return HtmlPage(410, "Link removed", "This short link was removed by its owner.");
    case DISABLED:
      return HtmlPage(410, "Link disabled", "This short link was disabled by its owner.");
    case EXHAUSTED:
      return HtmlPage(410, "Link used up", "This short link has no visits left.");
    default:
      deps_.not_found_budget->Take(request.client_address(), now);
      return HtmlPage(404, "Not found", "There is no short link here.");
  }
}

std::vector<HttpRoute> ShortLinkServiceImpl::http_routes() {
  // "links" and "robots.txt" are reserved words, never codes.
  HttpRoute page =
      Document("/links", "text/html; charset=utf-8", "no-cache", WebPageHtml(), SetWebPageHeaders);
  // Short links are not pages for search engines to index (Shlink's default too).
  HttpRoute robots = Document("/robots.txt", "text/plain; charset=utf-8", "public, max-age=86400",
                              "User-agent: *\nDisallow: /\n");
  HttpRoute qr{.method = "GET",
               .pattern = "/{code}/qr",
               .handler = [this](const HttpRequest& request, HttpReply reply) {
                 reply(QrCodeAnswer(request));
               }};
  HttpRoute redirect{
      .method = "GET",
      .pattern = "/{code}",
      .handler = [this](const HttpRequest& request,
                        HttpReply reply) { reply(*Redirect(request, /*may_block=*/true)); },
      .answer_on_io_thread =
          [this](const HttpRequest& request) { return Redirect(request, /*may_block=*/false); }};
  std::vector<HttpRoute> routes;
  for (HttpRoute* route : {&page, &robots, &qr, &redirect}) routes.push_back(std::move(*route));
  return routes;
}

Status ShortLinkServiceImpl::Change(ServerContext& context, const std::string& domain,
                                    const std::string& code, const LinkChange& change,
                                    Link* response) {
  int64_t tenant_id = 0;
  if (Status s = VerifiedTenant(context, &tenant_id); !s.ok()) return s;
  std::string key;
  if (Status s = KeyOf(domain, code, &key); !s.ok()) return s;
  LinkRecord record;
  if (Status s = deps_.store->ChangeLink(tenant_id, key, change, &record); !s.ok()) return s;
  deps_.resolver->Publish(record);
  return FillAll({record}, [response] { return response; });
}

Status ShortLinkServiceImpl::UpdateLink(ServerContext& context, const UpdateLinkRequest& request,
                                        Link* response) {
  LinkChange change;
  if (!request.long_url().empty()) {
    std::string url;
    if (Status s = NormalizeTargetUrl(request.long_url(), deps_.url_policy, &url); !s.ok()) {
      return s;
    }
    change.long_url = url;
  }
  if (request.has_expires_at_ms()) {
    if (request.expires_at_ms() < 0) {
      return Status(StatusCode::INVALID_ARGUMENT, "expires_at_ms: 0 (none) or a time");
    }
    change.expires_at_ms = request.expires_at_ms();
  }
  if (request.has_title()) {
    if (Status s = ValidateTitle(request.title()); !s.ok()) return s;
    change.title = request.title();
  }
  if (request.has_forward_query()) change.forward_query = request.forward_query();
  if (request.has_tags()) {
    std::vector<std::string> tags;
    if (Status s = NormalizeTags(request.tags().tags(), &tags); !s.ok()) return s;
    change.tags = std::move(tags);
  }
  if (request.has_max_visits()) {
    if (request.max_visits() < 0) {
      return Status(StatusCode::INVALID_ARGUMENT, "max_visits: 0 (no limit) or more");
    }
    change.max_visits = request.max_visits();
    if (request.max_visits() > 0) {
      // A limit counts every redirect the link gave, those before it was limited too.
      std::string key;
      if (Status s = KeyOf(request.domain(), request.code(), &key); !s.ok()) return s;
      std::map<std::string, int64_t> counted;
      if (Status s = deps_.stats->TotalVisits({key}, &counted); !s.ok()) return s;
      change.visits_at_least = counted[key];
    }
  }
  if (request.has_expired_url()) {
    std::string url;
    if (!request.expired_url().empty()) {
      if (Status s = NormalizeTargetUrl(request.expired_url(), deps_.url_policy, &url); !s.ok()) {
        return Status(s.code(), "expired_url: " + s.message());
      }
    }
    change.expired_url = url;
  }
  return Change(context, request.domain(), request.code(), change, response);
}

Status ShortLinkServiceImpl::EnableLink(ServerContext& context, const CodeRequest& request,
                                        Link* response) {
  return Change(context, request.domain(), request.code(), LinkChange{.enable = true}, response);
}

Status ShortLinkServiceImpl::DeleteLink(ServerContext& context, const CodeRequest& request,
                                        DeleteLinkResponse*) {
  int64_t tenant_id = 0;
  if (Status s = VerifiedTenant(context, &tenant_id); !s.ok()) return s;
  std::string key;
  if (Status s = KeyOf(request.domain(), request.code(), &key); !s.ok()) return s;
  LinkRecord record;
  if (Status s = deps_.store->DeleteLink(tenant_id, key, deps_.now_ms(), &record); !s.ok()) {
    return s;
  }
  deps_.resolver->Publish(record);
  // Counters written by a batch in flight now are erased again by the cleanup job.
  return deps_.stats->Erase(key);
}

Status ShortLinkServiceImpl::DisableLink(ServerContext& context, const CodeRequest& request,
                                         Link* response) {
  return Change(context, request.domain(), request.code(), LinkChange{.disable = true}, response);
}

Status ShortLinkServiceImpl::GetLink(ServerContext& context, const CodeRequest& request,
                                     Link* response) {
  int64_t tenant_id = 0;
  if (Status s = VerifiedTenant(context, &tenant_id); !s.ok()) return s;
  LinkRecord record;
  if (Status s = FindOwned(tenant_id, request.domain(), request.code(), &record); !s.ok()) {
    return s;
  }
  return FillAll({record}, [response] { return response; });
}

Status ShortLinkServiceImpl::ListLinks(ServerContext& context, const ListLinksRequest& request,
                                       ListLinksResponse* response) {
  int64_t tenant_id = 0;
  if (Status s = VerifiedTenant(context, &tenant_id); !s.ok()) return s;
  const uint32_t size = request.page_size() == 0 ? 100 : request.page_size();
  if (size > 1000) return Status(StatusCode::INVALID_ARGUMENT, "page_size: at most 1000");
  LinkListing listing{.limit = static_cast<int>(size) + 1};
  if (Status s = SearchWords(request.search(), &listing.words); !s.ok()) return s;
  if (!request.tag().empty()) {
    if (Status s = NormalizeTag(request.tag(), &listing.tag); !s.ok()) return s;
  }
  if (request.has_domain()) {
    std::string key;
    if (Status s = KeyOf(request.domain(), "", &key); !s.ok()) return s;
    listing.domain = std::string(DomainOfKey(key));
  }
  if (!request.page_token().empty()) {
    // "<created_at_ms>.<key>" of the previous page's last link.
    const std::string& token = request.page_token();
    const size_t dot = token.find('.');
    const char* end = token.data() + std::min(dot, token.size());
    if (dot == std::string::npos ||
        std::from_chars(token.data(), end, listing.before_created_ms).ec != std::errc() ||
        listing.before_created_ms <= 0) {
      return Status(StatusCode::INVALID_ARGUMENT, "page_token: not one ListLinks gave");
    }
    listing.before_code = token.substr(dot + 1);
  }
  std::vector<LinkRecord> records;
  if (Status s = deps_.store->ListLinks(tenant_id, listing, &records); !s.ok()) return s;
  const bool more = records.size() > size;
  if (more) records.resize(size);
  if (Status s = FillAll(records, [response] { return response->add_links(); }); !s.ok()) {
    return s;
  }
  if (more) {
    response->set_next_page_token(std::to_string(records.back().created_at_ms) + "." +
                                  records.back().code);
  }
  return Status::Ok();
}

Status ShortLinkServiceImpl::CreateTenant(ServerContext& context,
                                          const CreateTenantRequest& request,
                                          CreateTenantResponse* response) {
  if (Status s = VerifiedAdmin(context); !s.ok()) return s;
  if (request.name().empty() || request.name().size() > 255) {
    return Status(StatusCode::INVALID_ARGUMENT, "name: 1 to 255 bytes");
  }
  int64_t id = 0;
  if (Status s = deps_.store->CreateTenant(request.name(), deps_.now_ms(), &id); !s.ok()) return s;
  response->set_tenant_id(id);
  return Status::Ok();
}

Status ShortLinkServiceImpl::IssueApiKey(ServerContext& context, const IssueApiKeyRequest& request,
                                         IssueApiKeyResponse* response) {
  if (Status s = VerifiedAdmin(context); !s.ok()) return s;
  int64_t key_id = 0;
  std::string key;
  if (Status s = deps_.keys->Issue(request.tenant_id(), deps_.now_ms(), &key_id, &key); !s.ok()) {
    return s;
  }
  response->set_key_id(key_id);
  response->set_api_key(key);
  return Status::Ok();
}

Status ShortLinkServiceImpl::RevokeApiKey(ServerContext& context,
                                          const RevokeApiKeyRequest& request,
                                          RevokeApiKeyResponse*) {
  if (Status s = VerifiedAdmin(context); !s.ok()) return s;
  return deps_.store->RevokeApiKey(request.key_id(), deps_.now_ms());
}

}  // namespace ferry::shortlink
