#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <hiredis.h>

#include <atomic>
#include <map>
#include <set>
#include <thread>

#include "ferry/storage/sqlite_connection.h"
#include "raw_http_client.h"
#include "service/sha256_hex.h"
#include "service/tenant_keys.h"
#include "shortlink_test_support.h"

namespace ferry::shortlink::testing {
namespace {

using namespace std::chrono_literals;

class ShortLinkServiceTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    config_ = ConfigFor(GetParam(), dir_.path());
    provider_.Start(config_);
    key_ = NewTenantKey(provider_.proxy(), "acme", &tenant_id_);
    ASSERT_FALSE(key_.empty());
  }

  CreateLinkRequest Request(const std::string& request_id, const std::string& url) {
    CreateLinkRequest request;
    request.set_request_id(request_id);
    request.set_long_url(url);
    return request;
  }
  Result<CreateLinkResponse> Create(const CreateLinkRequest& request, const std::string& key = "") {
    return provider_.proxy().CreateLink(request, WithToken(key.empty() ? key_ : key));
  }
  std::string CreateCode(const std::string& request_id, const std::string& url) {
    return NewLink(provider_.proxy(), key_, request_id, url);
  }

  TempDir dir_;
  ShortLinkConfig config_;
  InProcessProvider provider_;
  std::string key_;
  int64_t tenant_id_ = 0;
};

TEST_P(ShortLinkServiceTest, CallsNeedAKeyAndTheTenantComesFromIt) {
  auto anonymous = provider_.proxy().CreateLink(Request("r1", "https://example.com/"));
  EXPECT_EQ(anonymous.status().code(), StatusCode::UNAUTHENTICATED) << anonymous.status();
  auto wrong = Create(Request("r1", "https://example.com/"), "slk_not-a-key");
  EXPECT_EQ(wrong.status().code(), StatusCode::UNAUTHENTICATED);

  CreateLinkRequest other_tenant = Request("r1", "https://example.com/");
  other_tenant.set_tenant_id(tenant_id_ + 1);
  EXPECT_EQ(Create(other_tenant).status().code(), StatusCode::PERMISSION_DENIED);

  // Another tenant sees nothing of acme's links.
  const std::string code = CreateCode("r1", "https://example.com/");
  int64_t key_id = 0;
  const std::string globex = NewTenantKey(provider_.proxy(), "globex", nullptr, &key_id);
  CodeRequest get;
  get.set_code(code);
  EXPECT_EQ(provider_.proxy().GetLink(get, WithToken(globex)).status().code(),
            StatusCode::NOT_FOUND);
  EXPECT_TRUE(provider_.proxy().GetLink(get, WithToken(key_)).ok());

  // A revoked key is refused from then on.
  RevokeApiKeyRequest revoke;
  revoke.set_key_id(key_id);
  EXPECT_EQ(provider_.proxy().RevokeApiKey(revoke, WithToken(globex)).status().code(),
            StatusCode::PERMISSION_DENIED);  // not the admin token
  ASSERT_TRUE(provider_.proxy().RevokeApiKey(revoke, WithToken(kAdminToken)).ok());
  EXPECT_EQ(provider_.proxy().GetLink(get, WithToken(globex)).status().code(),
            StatusCode::UNAUTHENTICATED);

  // A server in front of the service without the filter trusts no one.
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  Server bare(options);
  ASSERT_TRUE(bare.AddService(&provider_.app().service()).ok());
  ASSERT_TRUE(bare.Start().ok());
  auto unfiltered = NewProxy(bare.port());
  EXPECT_EQ(unfiltered->GetLink(get, WithToken(key_)).status().code(), StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(unfiltered->CreateTenant(CreateTenantRequest(), WithToken(kAdminToken)).status().code(),
            StatusCode::PERMISSION_DENIED);
  unfiltered.reset();
  bare.Stop();

  // Admin calls need the admin token.
  CreateTenantRequest tenant;
  tenant.set_name("initech");
  EXPECT_EQ(provider_.proxy().CreateTenant(tenant, WithToken(key_)).status().code(),
            StatusCode::PERMISSION_DENIED);
}

// An admin token with fewer than 128 bits is refused even when its digest is the configured
// one: an unsalted digest of a weak token is a password to crack offline.
TEST_P(ShortLinkServiceTest, AWeakAdminTokenIsRefusedEvenWithTheRightDigest) {
  std::filesystem::create_directories(dir_.path() / "weak");
  for (const std::string weak : {"test-admin-token", "0123456789abcdef0123456789abcde"}) {
    ShortLinkConfig config = ConfigFor(GetParam(), dir_.path() / "weak");
    config.admin_token_sha256 = Sha256Hex(weak);
    InProcessProvider weak_provider;
    weak_provider.Start(config);
    CreateTenantRequest tenant;
    tenant.set_name("initech");
    auto refused = weak_provider.proxy().CreateTenant(tenant, WithToken(weak));
    EXPECT_EQ(refused.status().code(), StatusCode::PERMISSION_DENIED) << weak;
    EXPECT_THAT(refused.status().message(), ::testing::HasSubstr("128 bits"));
  }
  EXPECT_GE(TokenBits(kAdminToken), kMinAdminTokenBits);
  EXPECT_GE(TokenBits("Zq3xLp9vRt2mWn8bYc4kHd"), kMinAdminTokenBits);  // 22 of [0-9A-Za-z]
}

// HEAD counts nothing; for a limited link it is the interstitial (200, no Location), which
// neither takes a visit nor shows the target.
TEST_P(ShortLinkServiceTest, RedirectAnswers302WithNoStoreAndHeadDoesNotCount) {
  CreateLinkRequest request = Request("r1", "https://Example.com/landing?x=1");
  request.set_max_visits(2);
  auto created = Create(request);
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ(created->outcome(), CREATED);
  EXPECT_EQ(created->short_url(), "http://s.test/" + created->code());

  const uint16_t port = provider_.port();
  for (int i = 0; i < 3; ++i) {
    HttpAnswer head = HttpGet(port, "/" + created->code(), "HEAD");
    EXPECT_EQ(head.status, 200);
    EXPECT_EQ(head.location, "");
  }
  for (int i = 0; i < 2; ++i) {
    HttpAnswer get = HttpGet(port, "/" + created->code());
    EXPECT_EQ(get.status, 302);
    EXPECT_EQ(get.location, "https://example.com/landing?x=1");
    EXPECT_EQ(get.cache_control, "private, no-store");
  }
  HttpAnswer used_up = HttpGet(port, "/" + created->code());
  EXPECT_EQ(used_up.status, 410);
  EXPECT_NE(used_up.body.find("<html>"), std::string::npos);
  EXPECT_EQ(provider_.app().visits().recorded(), 2u);

  EXPECT_EQ(HttpGet(port, "/" + created->code(), "HEAD").status, 410);

  HttpAnswer unknown = HttpGet(port, "/NoSuchCode");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_NE(unknown.body.find("no short link"), std::string::npos);
  EXPECT_EQ(HttpGet(port, "/health").status, 404);  // a reserved word is never a code here
}

// A one-visit link pasted in a chat: the chat's preview fetcher gets the interstitial without
// the target and takes no visit, so the person who clicks it still lands on the target.
TEST_P(ShortLinkServiceTest, PreviewFetchersDoNotUseUpALimitedLink) {
  CreateLinkRequest request = Request("r1", "https://example.com/once");
  request.set_max_visits(1);
  auto created = Create(request);
  ASSERT_TRUE(created.ok()) << created.status();
  const std::string path = "/" + created->code();
  for (const char* fetcher :
       {"Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)", "WhatsApp/2.23.20.0",
        "facebookexternalhit/1.1", "Mozilla/5.0 (compatible; Microsoft Office/16.0)",
        "TelegramBot (like TwitterBot)"}) {
    HttpAnswer preview =
        HttpCall(provider_.port(), "GET", path, {std::string("User-Agent: ") + fetcher});
    EXPECT_EQ(preview.status, 200) << fetcher;
    EXPECT_EQ(preview.location, "") << fetcher;
    EXPECT_EQ(preview.body.find("example.com"), std::string::npos) << fetcher;
  }
  const std::string browser = "User-Agent: Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0";
  HttpAnswer person = HttpCall(provider_.port(), "GET", path, {browser});
  EXPECT_EQ(person.status, 302);
  EXPECT_EQ(person.location, "https://example.com/once");
  EXPECT_EQ(HttpCall(provider_.port(), "GET", path, {browser}).status, 410);
  EXPECT_EQ(provider_.app().visits().recorded(), 1u);
}

// A used-up link is answered from the caches: 1000 GETs and 1000 HEADs after its last visit
// cost the database next to nothing.
TEST_P(ShortLinkServiceTest, AUsedUpLinkIsAnsweredFromTheCache) {
  CreateLinkRequest request = Request("r1", "https://example.com/once");
  request.set_max_visits(1);
  auto created = Create(request);
  ASSERT_TRUE(created.ok()) << created.status();
  const std::string path = "/" + created->code();
  const std::string browser = "User-Agent: Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0";
  ASSERT_EQ(HttpCall(provider_.port(), "GET", path, {browser}).status, 302);
  ASSERT_EQ(HttpCall(provider_.port(), "GET", path, {browser}).status, 410);
  const uint64_t before = provider_.app().store().queries();
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(HttpCall(provider_.port(), "GET", path, {browser}).status, 410);
    ASSERT_EQ(HttpCall(provider_.port(), "HEAD", path, {browser}).status, 410);
  }
  EXPECT_LT(provider_.app().store().queries() - before, 20u);
}

TEST_P(ShortLinkServiceTest, ConcurrentRetriesOfOneRequestGiveTheFirstResult) {
  constexpr int kClients = 16;
  std::vector<std::thread> threads;
  std::vector<Result<CreateLinkResponse>> results(kClients, Status(StatusCode::UNKNOWN, ""));
  for (int i = 0; i < kClients; ++i) {
    threads.emplace_back([&, i] { results[i] = Create(Request("same", "https://example.com/a")); });
  }
  for (auto& t : threads) t.join();
  std::set<std::string> codes;
  int created = 0;
  for (auto& r : results) {
    ASSERT_TRUE(r.ok()) << r.status();
    codes.insert(r->code());
    created += r->outcome() == CREATED ? 1 : 0;
    if (r->outcome() != CREATED) {
      EXPECT_EQ(r->outcome(), SAME_REQUEST);
    }
  }
  EXPECT_EQ(codes.size(), 1u);
  EXPECT_EQ(created, 1);

  auto changed = Create(Request("same", "https://example.com/b"));
  EXPECT_EQ(changed.status().code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(changed.status().message().find("other parameters"), std::string::npos);

  ListLinksRequest list;
  auto page = provider_.proxy().ListLinks(list, WithToken(key_));
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->links_size(), 1);
}

TEST_P(ShortLinkServiceTest, DedupIsPerTenantAndOnTheNormalisedUrl) {
  CreateLinkRequest first = Request("d1", "https://example.com/x");
  first.set_dedup(true);
  auto a = Create(first);
  ASSERT_TRUE(a.ok()) << a.status();
  CreateLinkRequest again = Request("d2", "HTTPS://EXAMPLE.com:443/x");
  again.set_dedup(true);
  auto b = Create(again);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->code(), a->code());
  EXPECT_EQ(b->outcome(), SAME_URL);

  CreateLinkRequest without = Request("d3", "https://example.com/x");  // dedup not asked
  auto c = Create(without);
  ASSERT_TRUE(c.ok());
  EXPECT_NE(c->code(), a->code());

  const std::string other = NewTenantKey(provider_.proxy(), "globex");
  auto d = Create(first, other);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->outcome(), CREATED);
  EXPECT_NE(d->code(), a->code());
}

TEST_P(ShortLinkServiceTest, OneCustomCodeRacedByManyHasOneWinner) {
  constexpr int kClients = 16;
  std::atomic<int> won{0};
  std::atomic<int> taken{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kClients; ++i) {
    threads.emplace_back([&, i] {
      CreateLinkRequest request =
          Request("race-" + std::to_string(i), "https://example.com/" + std::to_string(i));
      request.set_custom_code("Spring26");
      auto r = Create(request);
      if (r.ok()) {
        EXPECT_EQ(r->code(), "Spring26");
        ++won;
      } else {
        EXPECT_EQ(r.status().code(), StatusCode::ALREADY_EXISTS) << r.status();
        ++taken;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(won.load(), 1);
  EXPECT_EQ(taken.load(), kClients - 1);

  CreateLinkRequest reserved = Request("res", "https://example.com/");
  reserved.set_custom_code("metrics");
  EXPECT_EQ(Create(reserved).status().code(), StatusCode::INVALID_ARGUMENT);
  CreateLinkRequest bad = Request("bad", "javascript:alert(1)");
  EXPECT_EQ(Create(bad).status().code(), StatusCode::INVALID_ARGUMENT);
}

TEST_P(ShortLinkServiceTest, DisableAndUpdateReachEveryProviderWithinASecond) {
  // On embedded, a second server over the same app (its database has one provider); on
  // redis+mariadb, a second provider of its own on the same Redis and MariaDB.
  InProcessProvider other;
  if (GetParam() == Backend::kEmbedded) {
    other.Serve(&provider_.app());
  } else {
    other.Start(config_);
  }
  const std::string code = CreateCode("u1", "https://example.com/old");
  EXPECT_EQ(HttpGet(other.port(), "/" + code).location, "https://example.com/old");
  EXPECT_EQ(HttpGet(provider_.port(), "/" + code).location, "https://example.com/old");

  UpdateLinkRequest update;
  update.set_code(code);
  update.set_long_url("https://example.com/new");
  ASSERT_TRUE(provider_.proxy().UpdateLink(update, WithToken(key_)).ok());
  EXPECT_EQ(HttpGet(provider_.port(), "/" + code).location, "https://example.com/new");
  // A request that starts more than 1 s after the change must see it (50 ms of slack).
  const auto updated = std::chrono::steady_clock::now();
  while (true) {
    const auto asked = std::chrono::steady_clock::now();
    if (HttpGet(other.port(), "/" + code).location == "https://example.com/new") break;
    ASSERT_LT(asked - updated, 1050ms) << "stale after 1 s";
    std::this_thread::sleep_for(20ms);
  }

  CodeRequest disable;
  disable.set_code(code);
  ASSERT_TRUE(provider_.proxy().DisableLink(disable, WithToken(key_)).ok());
  EXPECT_EQ(HttpGet(provider_.port(), "/" + code).status, 410);
  const auto disabled = std::chrono::steady_clock::now();
  while (true) {
    const auto asked = std::chrono::steady_clock::now();
    if (HttpGet(other.port(), "/" + code).status == 410) break;
    ASSERT_LT(asked - disabled, 1050ms) << "stale after 1 s";
    std::this_thread::sleep_for(20ms);
  }
  auto resolved = provider_.proxy().Resolve(disable, WithToken(key_));
  ASSERT_TRUE(resolved.ok());
  EXPECT_EQ(resolved->outcome(), DISABLED);
}

// Codes cannot be walked: the neighbours of 50 fresh codes (each character moved one step in
// Base62) are no links; Resolve needs the link's tenant (or the operator) and tells another
// tenant nothing; a client that keeps asking for unknown codes is answered 429 after its
// allowance, for known codes too.
TEST_P(ShortLinkServiceTest, CodesCannotBeWalked) {
  constexpr std::string_view kBase62 =
      "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  std::set<std::string> codes;
  for (int i = 0; i < 50; ++i) codes.insert(CreateCode("w" + std::to_string(i), "https://e.test/"));
  int live_neighbours = 0;
  for (const std::string& code : codes) {
    EXPECT_GE(code.size(), 7u) << code;
    for (size_t at = 0; at < code.size(); ++at) {
      for (int step : {-1, 1}) {
        std::string neighbour = code;
        const size_t digit = kBase62.find(code[at]);
        neighbour[at] = kBase62[(digit + kBase62.size() + step) % kBase62.size()];
        if (!codes.contains(neighbour) &&
            HttpGet(provider_.port(), "/" + neighbour).status != 404) {
          ++live_neighbours;
        }
      }
    }
  }
  EXPECT_EQ(live_neighbours, 0);

  CodeRequest mine;
  mine.set_code(*codes.begin());
  EXPECT_EQ(provider_.proxy().Resolve(mine).status().code(), StatusCode::UNAUTHENTICATED);
  const std::string other = NewTenantKey(provider_.proxy(), "globex");
  auto theirs = provider_.proxy().Resolve(mine, WithToken(other));
  ASSERT_TRUE(theirs.ok()) << theirs.status();
  EXPECT_EQ(theirs->outcome(), NOT_FOUND);
  EXPECT_EQ(theirs->long_url(), "");
  auto own = provider_.proxy().Resolve(mine, WithToken(key_));
  ASSERT_TRUE(own.ok());
  EXPECT_EQ(own->outcome(), FOUND);
  auto operator_view = provider_.proxy().Resolve(mine, WithToken(kAdminToken));
  ASSERT_TRUE(operator_view.ok());
  EXPECT_EQ(operator_view->outcome(), FOUND);

  ShortLinkConfig limited = config_;  // the same database: the codes are known there
  limited.not_found_per_minute = 20;
  InProcessProvider guarded;
  guarded.Start(limited);
  for (int i = 0; i < 20; ++i)
    EXPECT_EQ(HttpGet(guarded.port(), "/nope" + std::to_string(i)).status, 404);
  EXPECT_EQ(HttpGet(guarded.port(), "/nope-more").status, 429);
  EXPECT_EQ(HttpGet(guarded.port(), "/" + *codes.begin()).status, 429);
}

// The shipped configurations limit the redirect route per client address through the server's
// filters (`ratelimit` on "http/GET /{code}"): one address following a link hundreds of times at
// once gets its burst of 302s, then 429 with Retry-After; the RPC surface is not limited by it.
TEST_P(ShortLinkServiceTest, TheShippedRateLimitCoversTheRedirectRoute) {
  const std::string name =
      GetParam() == Backend::kEmbedded ? "shortlink-server.yaml" : "shortlink-server-redis.yaml";
  const std::string code = CreateCode("limited-route", "https://example.com/route");
  InProcessProvider shipped;  // the same database: the link is known there
  shipped.Start(config_,
                testsupport::ServerFiltersOf(std::string(SHORTLINK_CONFIG_DIR) + "/" + name));
  // Pipelined on one connection, so the requests outrun the refill however slow the build is.
  http_test::RawHttpClient client(shipped.port());
  constexpr int kSent = 600;
  std::string requests;
  for (int i = 0; i < kSent; ++i) requests += http_test::Request("GET", "/" + code);
  ASSERT_TRUE(client.Send(requests));
  int redirected = 0;
  int limited = 0;
  for (int i = 0; i < kSent; ++i) {
    auto answer = client.Read();
    ASSERT_TRUE(answer) << "answer " << i;
    if (answer->status == 302) {
      ++redirected;
    } else {
      EXPECT_GE(i, 200) << "refused within the burst";
      EXPECT_EQ(answer->status, 429) << answer->body;
      EXPECT_EQ(answer->headers.count("retry-after"), 1u);
      ++limited;
    }
  }
  EXPECT_GE(redirected, 200);
  EXPECT_GT(limited, 0);
  for (int i = 0; i < 5; ++i) {
    CodeRequest request;
    request.set_code(code);
    EXPECT_TRUE(shipped.proxy().GetLink(request, WithToken(key_)).ok());
  }
}

// The shipped configurations leave the admin methods to the API-key filter, which the provider
// adds after the configured filters: an anonymous admin call is refused, one with the admin
// token served.
TEST_P(ShortLinkServiceTest, TheShippedConfigsRefuseAnonymousAdminCalls) {
  const std::string name =
      GetParam() == Backend::kEmbedded ? "shortlink-server.yaml" : "shortlink-server-redis.yaml";
  InProcessProvider shipped;
  shipped.Start(config_,
                testsupport::ServerFiltersOf(std::string(SHORTLINK_CONFIG_DIR) + "/" + name));
  CreateTenantRequest tenant;
  tenant.set_name("shipped-admin");
  const Status anonymous = shipped.proxy().CreateTenant(tenant).status();
  EXPECT_EQ(anonymous.code(), StatusCode::PERMISSION_DENIED) << anonymous;
  IssueApiKeyRequest issue;
  issue.set_tenant_id(1);
  EXPECT_EQ(shipped.proxy().IssueApiKey(issue).status().code(), StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(shipped.proxy().RevokeApiKey(RevokeApiKeyRequest()).status().code(),
            StatusCode::PERMISSION_DENIED);
  const auto created = shipped.proxy().CreateTenant(tenant, WithToken(kAdminToken));
  EXPECT_TRUE(created.ok()) << created.status();
}

// 10,000 requests for 1,000 codes that do not exist cost the database at most a query each
// the first time (the filter rules nearly all out; the rest get null entries), none after.
TEST_P(ShortLinkServiceTest, UnknownCodeFloodBarelyReachesTheDatabase) {
  for (int i = 0; i < 50; ++i) CreateCode("real-" + std::to_string(i), "https://example.com/");
  const std::string real = CreateCode("real", "https://example.com/real");
  const uint64_t before = provider_.app().store().queries();
  ResolveResponse answer;
  for (int round = 0; round < 10; ++round) {
    for (int i = 0; i < 1000; ++i) {
      ASSERT_TRUE(
          provider_.app().service().Decide("zz" + std::to_string(i), Ask::kLook, &answer).ok());
      ASSERT_EQ(answer.outcome(), NOT_FOUND);
    }
  }
  const uint64_t queries = provider_.app().store().queries() - before;
  EXPECT_LT(queries, 10u) << queries << " database queries for 10,000 unknown-code requests";

  // A new link is found at once, by this provider and (through HTTP) by the route.
  const std::string fresh = CreateCode("fresh", "https://example.com/fresh");
  ASSERT_TRUE(provider_.app().service().Decide(fresh, Ask::kLook, &answer).ok());
  EXPECT_EQ(answer.outcome(), FOUND);
  EXPECT_EQ(HttpGet(provider_.port(), "/" + real).status, 302);
}

TEST_P(ShortLinkServiceTest, ExactlyKVisitsAcrossFourProvidersAnd200Clients) {
  std::vector<std::unique_ptr<InProcessProvider>> providers;
  for (int i = 0; i < 4; ++i) {
    providers.push_back(std::make_unique<InProcessProvider>());
    if (GetParam() == Backend::kEmbedded) {
      providers.back()->Serve(&provider_.app());
    } else {
      providers.back()->Start(config_);
    }
  }
  CreateLinkRequest request = Request("limited", "https://example.com/limited");
  request.set_max_visits(100);
  auto created = Create(request);
  ASSERT_TRUE(created.ok()) << created.status();
  std::atomic<int> found{0};
  std::atomic<int> gone{0};
  std::atomic<int> other{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < 200; ++i) {
    clients.emplace_back([&, i] {
      const int status = HttpGet(providers[i % 4]->port(), "/" + created->code()).status;
      (status == 302 ? found : status == 410 ? gone : other)++;
    });
  }
  for (auto& c : clients) c.join();
  EXPECT_EQ(found.load(), 100);
  EXPECT_EQ(gone.load(), 100);
  EXPECT_EQ(other.load(), 0);
  CodeRequest get;
  get.set_code(created->code());
  auto link = provider_.proxy().GetLink(get, WithToken(key_));
  ASSERT_TRUE(link.ok());
  EXPECT_EQ(link->visits(), 100);
}

// Expiry keeps the link: 410 (or its expired URL), the target still there, and UpdateLink
// brings it back. Its code is never given to another link.
TEST_P(ShortLinkServiceTest, AnExpiredLinkKeepsItsTargetAndCanBeExtended) {
  CreateLinkRequest request = Request("exp", "https://example.com/soon");
  request.set_expires_at_ms(WallMs() + 300);
  request.set_custom_code("soon-gone");
  ASSERT_TRUE(Create(request).ok());
  CreateLinkRequest fallback = Request("exp2", "https://example.com/sale");
  fallback.set_expires_at_ms(WallMs() + 300);
  fallback.set_custom_code("sale-over");
  fallback.set_expired_url("https://example.com/next-sale");
  ASSERT_TRUE(Create(fallback).ok());
  EXPECT_EQ(HttpGet(provider_.port(), "/soon-gone").status, 302);
  std::this_thread::sleep_for(350ms);  // the links' own expiry time, not a synchronisation
  EXPECT_EQ(HttpGet(provider_.port(), "/soon-gone").status, 410);
  HttpAnswer moved = HttpGet(provider_.port(), "/sale-over");
  EXPECT_EQ(moved.status, 302);
  EXPECT_EQ(moved.location, "https://example.com/next-sale");

  int forgotten = 0;
  ASSERT_TRUE(provider_.app().CleanupOnce(&forgotten).ok());
  CodeRequest get;
  get.set_code("soon-gone");
  auto link = provider_.proxy().GetLink(get, WithToken(key_));
  ASSERT_TRUE(link.ok());
  EXPECT_EQ(link->long_url(), "https://example.com/soon");

  UpdateLinkRequest extend;
  extend.set_code("soon-gone");
  extend.set_expires_at_ms(WallMs() + 86'400'000);
  ASSERT_TRUE(provider_.proxy().UpdateLink(extend, WithToken(key_)).ok());
  HttpAnswer back = HttpGet(provider_.port(), "/soon-gone");
  EXPECT_EQ(back.status, 302);
  EXPECT_EQ(back.location, "https://example.com/soon");

  CreateLinkRequest reuse = Request("reuse", "https://example.com/other");
  reuse.set_custom_code("soon-gone");
  EXPECT_EQ(Create(reuse).status().code(), StatusCode::ALREADY_EXISTS);
}

// Dedup answers only with a live link made the same way: a disabled, re-targeted, used-up or
// otherwise-made link is not "the link for this URL", and a working one is made instead.
TEST_P(ShortLinkServiceTest, DedupOnlyMatchesLiveUnchangedLinksWithTheSameOptions) {
  auto dedup = [&](const std::string& id, const std::string& custom_code = "",
                   int64_t max_visits = 0) {
    CreateLinkRequest r = Request(id, "https://example.com/x");
    r.set_dedup(true);
    r.set_custom_code(custom_code);
    r.set_max_visits(max_visits);
    auto created = Create(r);
    EXPECT_TRUE(created.ok()) << created.status();
    return created.ok() ? *created : CreateLinkResponse();
  };
  const CreateLinkResponse a = dedup("d1");
  ASSERT_EQ(a.outcome(), CREATED);
  EXPECT_EQ(dedup("d2").code(), a.code());

  CodeRequest code;
  code.set_code(a.code());
  ASSERT_TRUE(provider_.proxy().DisableLink(code, WithToken(key_)).ok());
  const CreateLinkResponse b = dedup("d3");
  EXPECT_EQ(b.outcome(), CREATED);
  EXPECT_NE(b.code(), a.code());
  EXPECT_EQ(HttpGet(provider_.port(), "/" + b.code()).status, 302);

  UpdateLinkRequest retarget;
  retarget.set_code(b.code());
  retarget.set_long_url("https://example.com/y");
  ASSERT_TRUE(provider_.proxy().UpdateLink(retarget, WithToken(key_)).ok());
  const CreateLinkResponse c = dedup("d4");
  EXPECT_EQ(c.outcome(), CREATED);
  EXPECT_EQ(HttpGet(provider_.port(), "/" + c.code()).location, "https://example.com/x");

  const CreateLinkResponse promo = dedup("d5", "promo-x");
  EXPECT_EQ(promo.outcome(), CREATED);
  EXPECT_EQ(promo.code(), "promo-x");

  const CreateLinkResponse once = dedup("d6", "", 1);
  EXPECT_EQ(once.outcome(), CREATED);
  const std::string browser = "User-Agent: Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0";
  ASSERT_EQ(HttpCall(provider_.port(), "GET", "/" + once.code(), {browser}).status, 302);
  const CreateLinkResponse again = dedup("d7", "", 1);
  EXPECT_EQ(again.outcome(), CREATED);
  EXPECT_NE(again.code(), once.code());
}

// EnableLink undoes DisableLink; DeleteLink erases the target and the statistics, the code
// answers 410 and is never reused.
TEST_P(ShortLinkServiceTest, LinksCanBeEnabledAgainAndDeleted) {
  CreateLinkRequest made = Request("r1", "https://example.com/private");
  made.set_custom_code("keep-me");
  ASSERT_TRUE(Create(made).ok());
  const std::string code = "keep-me";
  CodeRequest request;
  request.set_code(code);
  ASSERT_TRUE(provider_.proxy().DisableLink(request, WithToken(key_)).ok());
  EXPECT_EQ(HttpGet(provider_.port(), "/" + code).status, 410);
  auto enabled = provider_.proxy().EnableLink(request, WithToken(key_));
  ASSERT_TRUE(enabled.ok()) << enabled.status();
  EXPECT_FALSE(enabled->disabled());
  EXPECT_EQ(HttpGet(provider_.port(), "/" + code).status, 302);

  const std::string other = NewTenantKey(provider_.proxy(), "globex");
  EXPECT_EQ(provider_.proxy().DeleteLink(request, WithToken(other)).status().code(),
            StatusCode::NOT_FOUND);
  ASSERT_TRUE(provider_.proxy().DeleteLink(request, WithToken(key_)).ok());
  ASSERT_TRUE(provider_.proxy().DeleteLink(request, WithToken(key_)).ok());  // once is enough
  HttpAnswer gone = HttpGet(provider_.port(), "/" + code);
  EXPECT_EQ(gone.status, 410);
  EXPECT_NE(gone.body.find("removed"), std::string::npos);
  auto link = provider_.proxy().GetLink(request, WithToken(key_));
  ASSERT_TRUE(link.ok()) << link.status();
  EXPECT_TRUE(link->deleted());
  EXPECT_EQ(link->long_url(), "");
  auto resolved = provider_.proxy().Resolve(request, WithToken(key_));
  ASSERT_TRUE(resolved.ok());
  EXPECT_EQ(resolved->outcome(), DELETED);
  EXPECT_EQ(provider_.proxy().EnableLink(request, WithToken(key_)).status().code(),
            StatusCode::NOT_FOUND);
  CreateLinkRequest reuse = Request("reuse", "https://example.com/other");
  reuse.set_custom_code(code);
  EXPECT_EQ(Create(reuse).status().code(), StatusCode::ALREADY_EXISTS);
}

TEST_P(ShortLinkServiceTest, ListPagesAndStatsOfOwnLinksOnly) {
  for (int i = 0; i < 5; ++i) CreateCode("l" + std::to_string(i), "https://example.com/");
  ListLinksRequest list;
  list.set_page_size(2);
  std::set<std::string> codes;
  for (int page = 0; page < 3; ++page) {
    auto r = provider_.proxy().ListLinks(list, WithToken(key_));
    ASSERT_TRUE(r.ok()) << r.status();
    for (const Link& l : r->links()) codes.insert(l.code());
    EXPECT_EQ(r->next_page_token().empty(), page == 2);
    list.set_page_token(r->next_page_token());
  }
  EXPECT_EQ(codes.size(), 5u);
  StatsRequest stats;
  stats.set_code(*codes.begin());
  auto none = provider_.proxy().Stats(stats, WithToken(key_));
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->pv(), 0);
  const std::string other = NewTenantKey(provider_.proxy(), "other");
  EXPECT_EQ(provider_.proxy().Stats(stats, WithToken(other)).status().code(),
            StatusCode::NOT_FOUND);
}

TEST_P(ShortLinkServiceTest, TheJsonGatewayTakesTheKeyAsABearerToken) {
  const std::string path = "/ferry.shortlink.ShortLinkService/CreateLink";
  const std::string body = R"({"requestId":"g1","longUrl":"https://example.com/g"})";
  HttpAnswer anonymous =
      HttpCall(provider_.port(), "POST", path, {"Content-Type: application/json"}, body);
  EXPECT_EQ(anonymous.status, 401) << anonymous.body;
  HttpAnswer created =
      HttpCall(provider_.port(), "POST", path,
               {"Content-Type: application/json", "Authorization: Bearer " + key_}, body);
  ASSERT_EQ(created.status, 200) << created.body;
  const size_t at = created.body.find(R"("code":")");
  ASSERT_NE(at, std::string::npos) << created.body;
  const std::string code = created.body.substr(at + 8, created.body.find('"', at + 8) - at - 8);
  EXPECT_EQ(HttpGet(provider_.port(), "/" + code).location, "https://example.com/g");
}

INSTANTIATE_TEST_SUITE_P(Backends, ShortLinkServiceTest,
                         ::testing::Values(Backend::kEmbedded, Backend::kRedisMariaDb),
                         BackendName);

// The cache entry of `code` in the generation Redis is in now.
std::string CachedLinkKey(storage::RedisConnectionPool& pool, const std::string& code) {
  storage::RedisReplyPtr reply;
  EXPECT_TRUE(pool.Run({"HGET", "shortlink:generation", "gen"}, &reply).ok());
  return "shortlink:link:g" + std::string(storage::ReplyText(reply.get())) + ":" + code;
}

// Redis restarted empty: links made before and after keep redirecting from the database while
// the filter is gone, and the reload job puts the filter back so unknown codes cost nothing again.
TEST(ShortLinkRedisRestartTest, RedirectsKeepWorkingAndTheFilterComesBack) {
  TempDir dir;
  InProcessProvider provider;
  provider.Start(ConfigFor(Backend::kRedisMariaDb, dir.path()));
  const std::string key = NewTenantKey(provider.proxy(), "acme");
  auto create = [&](const std::string& id, const std::string& url) {
    return NewLink(provider.proxy(), key, id, url);
  };
  const std::string before = create("before", "https://example.com/before");
  EXPECT_EQ(HttpGet(provider.port(), "/" + before).status, 302);

  ASSERT_TRUE(SharedServers::redis().RestartEmpty());
  EXPECT_EQ(HttpGet(provider.port(), "/" + before).location, "https://example.com/before");
  const std::string after = create("after", "https://example.com/after");
  EXPECT_EQ(HttpGet(provider.port(), "/" + after).location, "https://example.com/after");

  ResolveResponse answer;
  int probe = 0;
  const auto restarted = std::chrono::steady_clock::now();
  while (true) {
    const uint64_t queries = provider.app().store().queries();
    ASSERT_TRUE(provider.app()
                    .service()
                    .Decide("unknown" + std::to_string(++probe), Ask::kLook, &answer)
                    .ok());
    EXPECT_EQ(answer.outcome(), NOT_FOUND);
    if (provider.app().store().queries() == queries) break;  // the filter answered alone
    ASSERT_LT(std::chrono::steady_clock::now() - restarted, 10s) << "the filter was not reloaded";
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(HttpGet(provider.port(), "/" + before).status, 302);
  EXPECT_EQ(HttpGet(provider.port(), "/" + after).status, 302);
}

// Redis unreachable while a link is changed and another created, then back with its data (an
// append-only file): the cache's old version and the filter without the new code would stand
// for hours; the provider that made the changes writes them once Redis answers, and the other
// provider serves both within seconds.
TEST(ShortLinkRedisRestartTest, ChangesMadeWhileRedisWasAwayReachItOnceItIsBack) {
  testsupport::RedisServer redis({.appendonly = true, .extra_args = {"--appendfsync", "always"}});
  ASSERT_TRUE(redis.Start());
  TempDir dir;
  ShortLinkConfig config = ConfigFor(Backend::kRedisMariaDb, dir.path());
  config.redis_port = redis.port();
  config.redis_timeout_ms = 1000;
  InProcessProvider a;
  InProcessProvider b;
  a.Start(config);
  b.Start(config);
  const std::string key = NewTenantKey(a.proxy(), "acme");
  CreateLinkRequest create;
  create.set_request_id("old");
  create.set_long_url("https://example.com/old");
  auto made = a.proxy().CreateLink(create, WithToken(key));
  ASSERT_TRUE(made.ok()) << made.status();
  const std::string code = made->code();
  EXPECT_EQ(HttpGet(b.port(), "/" + code).location, "https://example.com/old");

  redis.Stop();
  UpdateLinkRequest update;
  update.set_code(code);
  update.set_long_url("https://example.com/new");
  ASSERT_TRUE(a.proxy().UpdateLink(update, WithToken(key)).ok());
  create.set_request_id("during");
  create.set_long_url("https://example.com/during");
  auto during = a.proxy().CreateLink(create, WithToken(key));
  ASSERT_TRUE(during.ok()) << during.status();
  EXPECT_EQ(HttpGet(a.port(), "/" + code).location, "https://example.com/new");

  ASSERT_TRUE(redis.Start());  // with the old entry and the filter marked loaded
  const auto back = std::chrono::steady_clock::now();
  while (HttpGet(b.port(), "/" + code).location != "https://example.com/new" ||
         HttpGet(b.port(), "/" + during->code()).location != "https://example.com/during") {
    ASSERT_LT(std::chrono::steady_clock::now() - back, 10s) << "still stale on the other provider";
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_EQ(HttpGet(a.port(), "/" + code).location, "https://example.com/new");

  // Once the cached entry is gone (its TTL, an eviction), the filter alone decides: the code
  // made while Redis was away must be in it. A provider started now has nothing in its hot cache.
  InProcessProvider c;
  c.Start(config);
  storage::RedisOptions options;
  options.host = redis.host();
  options.port = redis.port();
  storage::RedisConnectionPool pool(options);
  const auto reloaded = std::chrono::steady_clock::now();
  while (true) {
    storage::RedisReplyPtr reply;
    ASSERT_TRUE(pool.Run({"DEL", CachedLinkKey(pool, during->code())}, &reply).ok());
    if (HttpGet(c.port(), "/" + during->code()).status == 302) break;
    ASSERT_LT(std::chrono::steady_clock::now() - reloaded, 10s) << "the filter lacks the code";
    std::this_thread::sleep_for(50ms);
  }
}

// Redis restored from a copy taken before a create and a disable: the acknowledged writes it
// lost (the new code's filter bits, the disabled version in the cache) are noticed through the
// Redis generation, and within 5 s both providers answer 302 for the new link and 410 for the
// disabled one. Then the filter's bitmap is deleted (as an eviction would): uncached links
// still redirect.
TEST(ShortLinkRedisRestartTest, ARedisRestoredFromAnOlderCopyLosesNoConfirmedChange) {
  testsupport::RedisServer redis({.appendonly = true, .extra_args = {"--appendfsync", "always"}});
  ASSERT_TRUE(redis.Start());
  TempDir dir;
  ShortLinkConfig config = ConfigFor(Backend::kRedisMariaDb, dir.path());
  config.redis_port = redis.port();
  InProcessProvider a;
  InProcessProvider b;
  a.Start(config);
  b.Start(config);
  const std::string key = NewTenantKey(a.proxy(), "acme");
  auto create = [&](const std::string& id) {
    return NewLink(a.proxy(), key, id, "https://example.com/" + id);
  };
  const std::string old_code = create("old");
  ASSERT_EQ(HttpGet(b.port(), "/" + old_code).status, 302);  // cached, in the filter

  redis.Stop();
  const std::filesystem::path copy = dir.path() / "redis-copy";
  std::filesystem::copy(redis.data_dir(), copy, std::filesystem::copy_options::recursive);
  ASSERT_TRUE(redis.Start());
  const std::string new_code = create("new");
  CodeRequest disable;
  disable.set_code(old_code);
  ASSERT_TRUE(a.proxy().DisableLink(disable, WithToken(key)).ok());
  ASSERT_EQ(HttpGet(b.port(), "/" + new_code).status, 302);

  redis.Stop();
  std::filesystem::remove_all(redis.data_dir());
  std::filesystem::copy(copy, redis.data_dir(), std::filesystem::copy_options::recursive);
  ASSERT_TRUE(redis.Start());  // the older copy: old_code enabled in the cache, new_code unknown
  const auto back = std::chrono::steady_clock::now();
  for (InProcessProvider* p : {&a, &b}) {
    while (HttpGet(p->port(), "/" + new_code).status != 302 ||
           HttpGet(p->port(), "/" + old_code).status != 410) {
      ASSERT_LT(std::chrono::steady_clock::now() - back, 5s) << "a lost write is still served";
      std::this_thread::sleep_for(50ms);
    }
  }

  storage::RedisOptions options;
  options.host = redis.host();
  options.port = redis.port();
  storage::RedisConnectionPool pool(options);
  storage::RedisReplyPtr reply;
  ASSERT_TRUE(pool.Run({"KEYS", "shortlink:bloom:*"}, &reply).ok());
  for (size_t i = 0; i < reply->elements; ++i) {
    storage::RedisReplyPtr deleted;
    ASSERT_TRUE(
        pool.Run({"DEL", std::string(storage::ReplyText(reply->element[i]))}, &deleted).ok());
  }
  ASSERT_TRUE(pool.Run({"DEL", CachedLinkKey(pool, new_code)}, &reply).ok());
  InProcessProvider c;  // nothing in its hot cache
  c.Start(config);
  EXPECT_EQ(HttpGet(c.port(), "/" + new_code).status, 302);
}

// A disable whose cache write was lost (the provider that made it died before repeating it):
// the database's change log still tells every provider, and within 5 s the link answers 410
// everywhere instead of redirecting for the cache's hour.
TEST(ShortLinkRedisRestartTest, ADisableWhoseCacheWriteWasLostStillReachesEveryProvider) {
  TempDir dir;
  const ShortLinkConfig config = ConfigFor(Backend::kRedisMariaDb, dir.path());
  InProcessProvider a;
  InProcessProvider b;
  a.Start(config);
  b.Start(config);
  const std::string key = NewTenantKey(a.proxy(), "acme");
  const std::string code = NewLink(a.proxy(), key, "r1", "https://example.com/abuse");
  ASSERT_EQ(HttpGet(b.port(), "/" + code).status, 302);

  storage::RedisOptions options;
  options.host = SharedServers::redis().host();
  options.port = SharedServers::redis().port();
  storage::RedisConnectionPool pool(options);
  storage::RedisReplyPtr reply;
  ASSERT_TRUE(pool.Run({"GET", CachedLinkKey(pool, code)}, &reply).ok());
  ASSERT_TRUE(storage::IsTextReply(reply.get()));
  const std::string enabled(storage::ReplyText(reply.get()));
  CodeRequest disable;
  disable.set_code(code);
  ASSERT_TRUE(a.proxy().DisableLink(disable, WithToken(key)).ok());
  ASSERT_TRUE(pool.Run({"SET", CachedLinkKey(pool, code), enabled}, &reply).ok());  // lost

  const auto disabled = std::chrono::steady_clock::now();
  for (InProcessProvider* p : {&a, &b}) {
    while (HttpGet(p->port(), "/" + code).status != 410) {
      ASSERT_LT(std::chrono::steady_clock::now() - disabled, 5s) << "the disable did not arrive";
      std::this_thread::sleep_for(50ms);
    }
  }
}

// Redis accepts and never answers (stopped): redirects of known links keep answering, each
// unknown code costs the database at most one query, the breaker opens, and once Redis answers
// again a probe closes it.
TEST(ShortLinkRedisRestartTest, ASilentRedisDegradesRedirectsAndNeverStallsThem) {
  testsupport::RedisServer redis;
  ASSERT_TRUE(redis.Start());
  TempDir dir;
  ShortLinkConfig config = ConfigFor(Backend::kRedisMariaDb, dir.path());
  config.redis_port = redis.port();
  config.read_redis_timeout_ms = 100;
  config.breaker_failures = 3;
  config.breaker_open_ms = 300;
  config.fallback_queries_per_second = 1000;
  InProcessProvider provider;
  provider.Start(config);
  const std::string key = NewTenantKey(provider.proxy(), "acme");
  std::vector<std::string> known;
  for (int i = 0; i < 5; ++i) {
    known.push_back(NewLink(provider.proxy(), key, "r" + std::to_string(i),
                            "https://example.com/" + std::to_string(i)));
    ASSERT_EQ(HttpGet(provider.port(), "/" + known.back()).status, 302);
  }

  redis.Pause();
  const uint64_t before = provider.app().store().queries();
  for (int round = 0; round < 5; ++round) {
    for (const std::string& code : known) {
      EXPECT_EQ(HttpGet(provider.port(), "/" + code).status, 302) << code;
    }
    for (int i = 0; i < 100; ++i) {
      EXPECT_EQ(HttpGet(provider.port(), "/unknown" + std::to_string(i)).status, 404);
    }
  }
  EXPECT_TRUE(provider.app().read_breaker()->open());
  EXPECT_GE(provider.app().read_breaker()->openings(), 1u);
  // 5 known and 100 unknown codes asked 5 times: each reached the database once at most.
  EXPECT_LE(provider.app().store().queries() - before, 105u);

  redis.Resume();
  const auto resumed = std::chrono::steady_clock::now();
  while (provider.app().read_breaker()->open()) {
    ASSERT_LT(std::chrono::steady_clock::now() - resumed, 10s) << "the breaker never closed";
    EXPECT_EQ(HttpGet(provider.port(), "/" + known[0]).status, 302);
    std::this_thread::sleep_for(50ms);
  }
}

}  // namespace
}  // namespace ferry::shortlink::testing
