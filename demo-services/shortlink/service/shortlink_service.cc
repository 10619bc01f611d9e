#include "service/shortlink_service.h"

#include <map>

#include "service/api_key_filter.h"
#include "service/code_rules.h"
#include "service/shortlink_metrics.h"
#include "service/visit_facts.h"
#include "service/web_page.h"

namespace ferry::shortlink {

namespace {

constexpr int kStatsReferrers = 20;  // the top referrer hosts Stats lists

HttpResponse HtmlPage(int status, const std::string& title, const std::string& text) {
  HttpResponse response;
  response.status = status;
  response.Set("Content-Type", "text/html; charset=utf-8");
  response.body = "<!doctype html><html><head><meta charset=\"utf-8\"><title>" +
                  std::to_string(status) + " " + title + "</title></head><body><h1>" + title +
                  "</h1><p>" + text + "</p></body></html>\n";
  return response;
}

HttpResponse Found(const std::string& location) {
  HttpResponse response;
  response.status = 302;
  response.Set("Location", location);
  return response;
}

}  // namespace

std::string ShortLinkServiceImpl::ShortUrl(const std::string& code) const {
  return deps_.public_base_url + "/" + code;
}

void ShortLinkServiceImpl::Fill(const LinkRecord& r, Link* link) const {
  link->set_code(r.code);
  link->set_short_url(ShortUrl(r.code));
  link->set_long_url(r.long_url);
  link->set_created_at_ms(r.created_at_ms);
  link->set_expires_at_ms(r.expires_at_ms);
  link->set_max_visits(r.max_visits);
  link->set_visits(r.visits);
  link->set_disabled(r.disabled);
  link->set_request_id(r.request_id);
  link->set_expired_url(r.expired_url);
  link->set_deleted(r.deleted_at_ms != 0);
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
  response->set_short_url(ShortUrl(response->code()));
  return Status::Ok();
}

Status ShortLinkServiceImpl::Decide(const std::string& code, Ask ask, ResolveResponse* answer,
                                    bool* limited) {
  answer->set_outcome(NOT_FOUND);
  if (limited) *limited = false;
  if (!LooksLikeCode(code)) return Status::Ok();
  std::optional<CachedLink> link;
  if (Status s = deps_.resolver->Lookup(code, &link); !s.ok()) return s;
  if (!link) return Status::Ok();
  const int64_t now = deps_.now_ms();
  if (link->deleted) {
    answer->set_outcome(DELETED);
  } else if (link->disabled) {
    answer->set_outcome(DISABLED);
  } else if (link->purged || (link->expires_at_ms != 0 && link->expires_at_ms <= now)) {
    answer->set_outcome(EXPIRED);
    answer->set_long_url(link->expired_url);
  } else if (link->max_visits > 0) {
    if (limited) *limited = true;
    if (link->exhausted) {
      answer->set_outcome(EXHAUSTED);
    } else if (ask == Ask::kTake) {
      // The database decides, one conditional UPDATE per counted visit: exactly K pass.
      bool admitted = false;
      if (Status s = deps_.store->AdmitVisit(code, now, &admitted); !s.ok()) return s;
      if (!admitted) deps_.resolver->MarkExhausted(code, *link);
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
  if (answer->outcome() == FOUND) answer->set_long_url(link->long_url);
  return Status::Ok();
}

Status ShortLinkServiceImpl::Resolve(ServerContext& context, const CodeRequest& request,
                                     ResolveResponse* response) {
  if (VerifiedAdmin(context).ok()) return Decide(request.code(), Ask::kInspect, response);
  int64_t tenant_id = 0;
  if (Status s = VerifiedTenant(context, &tenant_id); !s.ok()) return s;
  // Another tenant's link is answered as no link: Resolve is no oracle of other tenants' codes.
  std::optional<LinkRecord> record;
  if (Status s = deps_.store->FindByCode(request.code(), &record); !s.ok()) return s;
  if (!record || record->tenant_id != tenant_id) {
    response->set_outcome(NOT_FOUND);
    return Status::Ok();
  }
  return Decide(request.code(), Ask::kInspect, response);
}

void ShortLinkServiceImpl::Redirect(const HttpRequest& request, HttpReply reply) {
  HttpResponse response = RedirectAnswer(request);
  response.Set("Cache-Control", "private, no-store");
  reply(std::move(response));
}

HttpResponse ShortLinkServiceImpl::RedirectAnswer(const HttpRequest& request) {
  const std::string code(request.Param("code"));
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
  if (Status s = Decide(code, ask, &answer, &limited); !s.ok()) {
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
    return Found(answer.long_url());
  }
  Metrics().refused_redirects->Increment();
  switch (answer.outcome()) {
    case EXPIRED:
      // The link's expired URL, when it has one: no visit of the link.
      if (!answer.long_url().empty()) return Found(answer.long_url());
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
  // "links" is a reserved word, never a code.
  HttpRoute page{.method = "GET",
                 .pattern = "/links",
                 .handler =
                     [](const HttpRequest&, HttpReply reply) {
                       HttpResponse response;
                       response.Set("Content-Type", "text/html; charset=utf-8");
                       response.Set("Cache-Control", "no-cache");
                       response.body = std::string(WebPageHtml());
                       reply(std::move(response));
                     },
                 .on_io_thread = true};
  return {std::move(page),
          {.method = "GET",
           .pattern = "/{code}",
           .handler = [this](const HttpRequest& request, HttpReply reply) {
             Redirect(request, std::move(reply));
           }}};
}

Status ShortLinkServiceImpl::Change(ServerContext& context, const std::string& code,
                                    const LinkChange& change, Link* response) {
  int64_t tenant_id = 0;
  if (Status s = VerifiedTenant(context, &tenant_id); !s.ok()) return s;
  LinkRecord record;
  if (Status s = deps_.store->ChangeLink(tenant_id, code, change, &record); !s.ok()) return s;
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
  if (request.has_max_visits()) {
    if (request.max_visits() < 0) {
      return Status(StatusCode::INVALID_ARGUMENT, "max_visits: 0 (no limit) or more");
    }
    change.max_visits = request.max_visits();
    if (request.max_visits() > 0) {
      // A limit counts every redirect the link gave, those before it was limited too.
      std::map<std::string, int64_t> counted;
      if (Status s = deps_.stats->TotalVisits({request.code()}, &counted); !s.ok()) return s;
      change.visits_at_least = counted[request.code()];
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
  return Change(context, request.code(), change, response);
}

Status ShortLinkServiceImpl::EnableLink(ServerContext& context, const CodeRequest& request,
                                        Link* response) {
  return Change(context, request.code(), LinkChange{.enable = true}, response);
}

Status ShortLinkServiceImpl::DeleteLink(ServerContext& context, const CodeRequest& request,
                                        DeleteLinkResponse*) {
  int64_t tenant_id = 0;
  if (Status s = VerifiedTenant(context, &tenant_id); !s.ok()) return s;
  LinkRecord record;
  if (Status s = deps_.store->DeleteLink(tenant_id, request.code(), deps_.now_ms(), &record);
      !s.ok()) {
    return s;
  }
  deps_.resolver->Publish(record);
  // Counters written by a batch in flight now are erased again by the cleanup job.
  return deps_.stats->Erase(request.code());
}

Status ShortLinkServiceImpl::DisableLink(ServerContext& context, const CodeRequest& request,
                                         Link* response) {
  return Change(context, request.code(), LinkChange{.disable = true}, response);
}

Status ShortLinkServiceImpl::GetLink(ServerContext& context, const CodeRequest& request,
                                     Link* response) {
  int64_t tenant_id = 0;
  if (Status s = VerifiedTenant(context, &tenant_id); !s.ok()) return s;
  std::optional<LinkRecord> record;
  if (Status s = deps_.store->FindByCode(request.code(), &record); !s.ok()) return s;
  if (!record || record->tenant_id != tenant_id) {
    return Status(StatusCode::NOT_FOUND, "no link " + request.code() + " of this tenant");
  }
  return FillAll({*record}, [response] { return response; });
}

Status ShortLinkServiceImpl::ListLinks(ServerContext& context, const ListLinksRequest& request,
                                       ListLinksResponse* response) {
  int64_t tenant_id = 0;
  if (Status s = VerifiedTenant(context, &tenant_id); !s.ok()) return s;
  const uint32_t size = request.page_size() == 0 ? 100 : request.page_size();
  if (size > 1000) return Status(StatusCode::INVALID_ARGUMENT, "page_size: at most 1000");
  std::vector<LinkRecord> records;
  if (Status s = deps_.store->ListLinks(tenant_id, request.page_token(), static_cast<int>(size) + 1,
                                        &records);
      !s.ok()) {
    return s;
  }
  const bool more = records.size() > size;
  if (more) records.resize(size);
  if (Status s = FillAll(records, [response] { return response->add_links(); }); !s.ok()) {
    return s;
  }
  if (more) response->set_next_page_token(records.back().code);
  return Status::Ok();
}

Status ShortLinkServiceImpl::Stats(ServerContext& context, const StatsRequest& request,
                                   StatsResponse* response) {
  int64_t tenant_id = 0;
  if (Status s = VerifiedTenant(context, &tenant_id); !s.ok()) return s;
  const int64_t to_ms = request.to_ms() == 0 ? deps_.now_ms() : request.to_ms();
  if (request.from_ms() < 0 || to_ms < request.from_ms()) {
    return Status(StatusCode::INVALID_ARGUMENT, "from_ms..to_ms: expected 0 <= from_ms <= to_ms");
  }
  std::optional<LinkRecord> record;
  if (Status s = deps_.store->FindByCode(request.code(), &record); !s.ok()) return s;
  if (!record || record->tenant_id != tenant_id) {
    return Status(StatusCode::NOT_FOUND, "no link " + request.code() + " of this tenant");
  }
  LinkStats stats;
  if (Status s = deps_.stats->Read(request.code(), UtcDay(request.from_ms()), UtcDay(to_ms),
                                   kStatsReferrers, &stats);
      !s.ok()) {
    return s;
  }
  for (const DayCount& day : stats.days) {
    DayStats* out = response->add_days();
    out->set_day(day.day);
    out->set_pv(day.pv);
    out->set_uv(day.uv);
    response->set_pv(response->pv() + day.pv);
    response->set_uv(response->uv() + day.uv);
    response->set_bot_visits(response->bot_visits() + day.bots);
  }
  for (const auto& [host, pv] : stats.referrers) {
    ReferrerStats* out = response->add_referrers();
    out->set_host(host);
    out->set_pv(pv);
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
