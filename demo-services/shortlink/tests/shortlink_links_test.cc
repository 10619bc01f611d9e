// What customers of Dub and Shlink expect of their links, on both backends: custom domains
// picked by Host, query forwarding, titles, tags, search and paging, bulk create, CSV export,
// QR codes and robots.txt.
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <thread>

#include "service/domain_table.h"
#include "service/qr_code.h"
#include "shortlink_test_support.h"

namespace ferry::shortlink::testing {
namespace {

using namespace std::chrono_literals;

class ShortLinkLinksTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    provider_.Start(ConfigFor(GetParam(), dir_.path()));
    key_ = NewTenantKey(provider_.proxy(), "acme");
    ASSERT_FALSE(key_.empty());
  }

  Result<CreateLinkResponse> Create(const CreateLinkRequest& request, const std::string& key = "") {
    return provider_.proxy().CreateLink(request, WithToken(key.empty() ? key_ : key));
  }
  static CreateLinkRequest Request(const std::string& request_id, const std::string& url) {
    CreateLinkRequest request;
    request.set_request_id(request_id);
    request.set_long_url(url);
    return request;
  }
  Status AddDomain(const std::string& domain, const std::string& key = "") {
    DomainRequest request;
    request.set_domain(domain);
    return provider_.proxy().AddDomain(request, WithToken(key.empty() ? key_ : key)).status();
  }
  HttpAnswer Get(const std::string& host, const std::string& path,
                 const std::vector<std::string>& headers = {}) {
    std::vector<std::string> all = headers;
    all.push_back("Host: " + host);
    return HttpCall(provider_.port(), "GET", path, all);
  }

  TempDir dir_;
  InProcessProvider provider_;
  std::string key_;
};

TEST_P(ShortLinkLinksTest, CustomDomainsPickTheLinkByHostAndCodesAreUniquePerDomain) {
  ASSERT_TRUE(AddDomain("go.acme.test").ok());
  ASSERT_TRUE(AddDomain("Links.ACME.test.").ok());  // normalised: lower case, no trailing dot
  EXPECT_EQ(AddDomain("nodots").code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(AddDomain("192.0.2.7").code(), StatusCode::INVALID_ARGUMENT);
  const std::string globex = NewTenantKey(provider_.proxy(), "globex");
  EXPECT_EQ(AddDomain("go.acme.test", globex).code(), StatusCode::ALREADY_EXISTS);
  auto listed = provider_.proxy().ListDomains(ListDomainsRequest(), WithToken(key_));
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_EQ(listed->domains_size(), 2);
  EXPECT_EQ(listed->domains(0).domain(), "go.acme.test");
  EXPECT_EQ(listed->domains(1).domain(), "links.acme.test");

  // One code, three links: the service's own domain and each custom one.
  const std::vector<std::pair<std::string, std::string>> links = {
      {"", "https://own.example/"},
      {"go.acme.test", "https://go.example/"},
      {"links.acme.test", "https://links.example/"}};
  for (const auto& [domain, url] : links) {
    CreateLinkRequest request = Request("sale-" + domain, url);
    request.set_custom_code("sale");
    request.set_domain(domain);
    auto created = Create(request);
    ASSERT_TRUE(created.ok()) << domain << ": " << created.status();
    EXPECT_EQ(created->code(), "sale");
    EXPECT_EQ(created->domain(), domain);
    EXPECT_EQ(created->short_url(),
              domain.empty() ? "http://s.test/sale" : "http://" + domain + "/sale");
  }
  CreateLinkRequest again = Request("sale-again", "https://other.example/");
  again.set_custom_code("sale");
  again.set_domain("go.acme.test");
  EXPECT_EQ(Create(again).status().code(), StatusCode::ALREADY_EXISTS);
  CreateLinkRequest foreign = Request("foreign", "https://other.example/");
  foreign.set_domain("go.acme.test");
  EXPECT_EQ(Create(foreign, globex).status().code(), StatusCode::PERMISSION_DENIED);

  EXPECT_EQ(Get("s.test", "/sale").location, "https://own.example/");
  EXPECT_EQ(Get("go.acme.test", "/sale").location, "https://go.example/");
  EXPECT_EQ(Get("GO.acme.test:8080", "/sale").location, "https://go.example/");
  EXPECT_EQ(Get("links.acme.test", "/sale").location, "https://links.example/");
  // An address or an unknown name is the service's own domain.
  EXPECT_EQ(Get("127.0.0.1", "/sale").location, "https://own.example/");

  // Calls name the domain with the code.
  CodeRequest get;
  get.set_code("sale");
  get.set_domain("go.acme.test");
  auto link = provider_.proxy().GetLink(get, WithToken(key_));
  ASSERT_TRUE(link.ok()) << link.status();
  EXPECT_EQ(link->long_url(), "https://go.example/");
  EXPECT_EQ(link->domain(), "go.acme.test");
  ASSERT_TRUE(provider_.proxy().DisableLink(get, WithToken(key_)).ok());
  EXPECT_EQ(Get("go.acme.test", "/sale").status, 410);
  EXPECT_EQ(Get("links.acme.test", "/sale").status, 302);

  // A domain with links stays until they are deleted.
  DomainRequest remove;
  remove.set_domain("go.acme.test");
  EXPECT_EQ(provider_.proxy().RemoveDomain(remove, WithToken(key_)).status().code(),
            StatusCode::FAILED_PRECONDITION);
  ASSERT_TRUE(provider_.proxy().DeleteLink(get, WithToken(key_)).ok());
  ASSERT_TRUE(provider_.proxy().RemoveDomain(remove, WithToken(key_)).ok());
  EXPECT_EQ(Get("go.acme.test", "/sale").location, "https://own.example/");
}

TEST_P(ShortLinkLinksTest, TheVisitsQueryStringIsForwardedUnlessTheLinkSaysNot) {
  auto forwarded = Create(Request("f", "https://t.example/p?x=1#part"));
  ASSERT_TRUE(forwarded.ok()) << forwarded.status();
  CreateLinkRequest plain_request = Request("p", "https://t.example/q");
  plain_request.set_forward_query(false);
  auto plain = Create(plain_request);
  ASSERT_TRUE(plain.ok()) << plain.status();
  auto bare = Create(Request("b", "https://t.example/r"));
  ASSERT_TRUE(bare.ok()) << bare.status();

  for (int i = 0; i < 2; ++i) {  // once from the database, once from the hot cache
    EXPECT_EQ(Get("s.test", "/" + forwarded->code() + "?utm_source=mail&a=%20b").location,
              "https://t.example/p?x=1&utm_source=mail&a=%20b#part");
    EXPECT_EQ(Get("s.test", "/" + plain->code() + "?utm_source=mail").location,
              "https://t.example/q");
    EXPECT_EQ(Get("s.test", "/" + bare->code() + "?k=v").location, "https://t.example/r?k=v");
    EXPECT_EQ(Get("s.test", "/" + bare->code()).location, "https://t.example/r");
  }
  CodeRequest get;
  get.set_code(plain->code());
  auto link = provider_.proxy().GetLink(get, WithToken(key_));
  ASSERT_TRUE(link.ok());
  EXPECT_FALSE(link->forward_query());
  UpdateLinkRequest update;
  update.set_code(plain->code());
  update.set_forward_query(true);
  ASSERT_TRUE(provider_.proxy().UpdateLink(update, WithToken(key_)).ok());
  EXPECT_EQ(Get("s.test", "/" + plain->code() + "?z=1").location, "https://t.example/q?z=1");
}

TEST_P(ShortLinkLinksTest, ListLinksSearchesTitlesAndTargetsFiltersByTagAndPages) {
  for (int i = 0; i < 25; ++i) {
    CreateLinkRequest request =
        Request("l" + std::to_string(i), "https://shop.example/item/" + std::to_string(i));
    request.set_title(i % 5 == 0 ? "Winter Sale " + std::to_string(i)
                                 : "Item " + std::to_string(i));
    request.add_tags(i % 2 == 0 ? "Even" : "odd");
    if (i % 3 == 0) request.add_tags("three");
    ASSERT_TRUE(Create(request).ok()) << i;
    std::this_thread::sleep_for(2ms);  // distinct creation times: newest first is well defined
  }
  CreateLinkRequest bad_tag = Request("bad", "https://shop.example/");
  bad_tag.add_tags("no spaces");
  EXPECT_EQ(Create(bad_tag).status().code(), StatusCode::INVALID_ARGUMENT);

  // Pages of 10: every link once, newest first.
  std::vector<std::string> titles;
  ListLinksRequest page;
  page.set_page_size(10);
  for (int pages = 0; pages < 5; ++pages) {
    auto listed = provider_.proxy().ListLinks(page, WithToken(key_));
    ASSERT_TRUE(listed.ok()) << listed.status();
    for (const Link& link : listed->links()) titles.push_back(link.title());
    if (listed->next_page_token().empty()) break;
    page.set_page_token(listed->next_page_token());
  }
  ASSERT_EQ(titles.size(), 25u);
  EXPECT_EQ(titles.front(), "Item 24");
  EXPECT_EQ(titles.back(), "Winter Sale 0");
  EXPECT_EQ(std::set<std::string>(titles.begin(), titles.end()).size(), 25u);

  const auto list = [&](const std::string& search, const std::string& tag) {
    ListLinksRequest request;
    request.set_search(search);
    request.set_tag(tag);
    request.set_page_size(100);
    auto listed = provider_.proxy().ListLinks(request, WithToken(key_));
    EXPECT_TRUE(listed.ok()) << listed.status();
    std::vector<std::string> found;
    if (listed.ok()) {
      for (const Link& link : listed->links()) found.push_back(link.title());
    }
    return found;
  };
  EXPECT_EQ(list("winter SALE", ""),
            (std::vector<std::string>{"Winter Sale 20", "Winter Sale 15", "Winter Sale 10",
                                      "Winter Sale 5", "Winter Sale 0"}));
  EXPECT_EQ(list("", "THREE").size(), 9u);  // 0, 3, ..., 24
  EXPECT_EQ(list("sale", "even"),
            (std::vector<std::string>{"Winter Sale 20", "Winter Sale 10", "Winter Sale 0"}));
  EXPECT_EQ(list("item/13", ""), (std::vector<std::string>{"Item 13"}));  // in the target
  EXPECT_TRUE(list("100%", "").empty());  // '%' is a character, not a wildcard
  auto too_many = provider_.proxy().ListLinks(
      [] {
        ListLinksRequest r;
        r.set_search("a b c d e f g h i");
        return r;
      }(),
      WithToken(key_));
  EXPECT_EQ(too_many.status().code(), StatusCode::INVALID_ARGUMENT);

  // Tags change with UpdateLink; the filter follows.
  ListLinksRequest first;
  first.set_tag("three");
  first.set_page_size(1);
  auto newest_three = provider_.proxy().ListLinks(first, WithToken(key_));
  ASSERT_TRUE(newest_three.ok() && newest_three->links_size() == 1);
  UpdateLinkRequest retag;
  retag.set_code(newest_three->links(0).code());
  retag.mutable_tags()->add_tags("archived");
  auto retagged = provider_.proxy().UpdateLink(retag, WithToken(key_));
  ASSERT_TRUE(retagged.ok()) << retagged.status();
  EXPECT_EQ(std::vector<std::string>(retagged->tags().begin(), retagged->tags().end()),
            std::vector<std::string>{"archived"});
  EXPECT_EQ(list("", "three").size(), 8u);
  EXPECT_EQ(list("", "archived").size(), 1u);
}

TEST_P(ShortLinkLinksTest, BulkCreateAnswersEachItemAndRefusesMoreThanAThousand) {
  BulkCreateLinksRequest bulk;
  *bulk.add_links() = Request("b1", "https://one.example/");
  *bulk.add_links() = Request("b2", "javascript:alert(1)");
  *bulk.add_links() = Request("b3", "https://three.example/");
  *bulk.add_links() = Request("b1", "https://one.example/");  // a retry of the first
  auto answered = provider_.proxy().BulkCreateLinks(bulk, WithToken(key_));
  ASSERT_TRUE(answered.ok()) << answered.status();
  ASSERT_EQ(answered->results_size(), 4);
  EXPECT_EQ(answered->results(0).status_code(), 0);
  EXPECT_EQ(answered->results(0).link().outcome(), CREATED);
  EXPECT_EQ(answered->results(1).status_code(), static_cast<int>(StatusCode::INVALID_ARGUMENT));
  EXPECT_FALSE(answered->results(1).error().empty());
  EXPECT_FALSE(answered->results(1).has_link());
  EXPECT_EQ(answered->results(2).status_code(), 0);
  EXPECT_EQ(answered->results(3).link().outcome(), SAME_REQUEST);
  EXPECT_EQ(answered->results(3).link().code(), answered->results(0).link().code());
  const std::string code = answered->results(2).link().code();
  EXPECT_EQ(answered->results(2).link().short_url(), "http://s.test/" + code);
  EXPECT_EQ(Get("s.test", "/" + code).location, "https://three.example/");

  BulkCreateLinksRequest too_many;
  for (int i = 0; i < 1001; ++i)
    *too_many.add_links() = Request("t" + std::to_string(i), "https://x.example/");
  EXPECT_EQ(provider_.proxy().BulkCreateLinks(too_many, WithToken(key_)).status().code(),
            StatusCode::INVALID_ARGUMENT);
}

TEST_P(ShortLinkLinksTest, DailyStatisticsExportAsCsvAndStatsNameDevicesAndBrowsers) {
  auto created = Create(Request("c", "https://csv.example/"));
  ASSERT_TRUE(created.ok()) << created.status();
  const std::string chrome =
      "User-Agent: Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like "
      "Gecko) Chrome/120.0.0.0 Safari/537.36";
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(Get("s.test", "/" + created->code(), {chrome}).status, 302);
  }
  ShortLinkApp& app = provider_.app();
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (app.visits().appended() < 3) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline);
    std::this_thread::sleep_for(5ms);
  }
  bool more = true;
  while (more) ASSERT_TRUE(app.ConsumeStatsOnce(&more).ok());
  StatsRequest request;
  request.set_code(created->code());
  auto exported = provider_.proxy().ExportStats(request, WithToken(key_));
  ASSERT_TRUE(exported.ok()) << exported.status();
  const std::string today = UtcDay(WallMs());
  EXPECT_EQ(exported->csv(), "day,visits,visitors,bot_visits\r\n" + today + ",3,1,0\r\n");
  EXPECT_EQ(exported->filename(), created->code() + "-" + today + "-" + today + ".csv");
  // Stats names the visits' device class and browser family.
  auto stats = provider_.proxy().Stats(request, WithToken(key_));
  ASSERT_TRUE(stats.ok()) << stats.status();
  ASSERT_EQ(stats->devices_size(), 1);
  EXPECT_EQ(stats->devices(0).name(), "desktop");
  EXPECT_EQ(stats->devices(0).visits(), 3);
  ASSERT_EQ(stats->browsers_size(), 1);
  EXPECT_EQ(stats->browsers(0).name(), "chrome");
  EXPECT_EQ(stats->browsers(0).visits(), 3);
  const std::string other = NewTenantKey(provider_.proxy(), "globex");
  EXPECT_EQ(provider_.proxy().ExportStats(request, WithToken(other)).status().code(),
            StatusCode::NOT_FOUND);
}

TEST_P(ShortLinkLinksTest, EachLinkHasAQrCodeOfItsShortUrlAndCrawlersAreTurnedAway) {
  ASSERT_TRUE(AddDomain("go.acme.test").ok());
  CreateLinkRequest request = Request("q", "https://qr.example/");
  request.set_domain("go.acme.test");
  auto created = Create(request);
  ASSERT_TRUE(created.ok()) << created.status();

  HttpAnswer svg = Get("go.acme.test", "/" + created->code() + "/qr");
  ASSERT_EQ(svg.status, 200) << svg.body;
  EXPECT_EQ(svg.content_type, "image/svg+xml");
  std::string expected;
  ASSERT_TRUE(QrCodeSvg(created->short_url(), &expected).ok());
  EXPECT_EQ(svg.body, expected);  // the QR code of http://go.acme.test/<code>

  HttpAnswer png = Get("go.acme.test", "/" + created->code() + "/qr?format=png");
  ASSERT_EQ(png.status, 200);
  EXPECT_EQ(png.content_type, "image/png");
  ASSERT_TRUE(QrCodePng(created->short_url(), 8, &expected).ok());
  EXPECT_EQ(png.body, expected);

  // The web page, on the service's own host, names the domain.
  HttpAnswer named = Get("s.test", "/" + created->code() + "/qr?domain=go.acme.test");
  ASSERT_EQ(named.status, 200);
  EXPECT_EQ(named.body, svg.body);

  EXPECT_EQ(Get("go.acme.test", "/" + created->code() + "/qr?format=gif").status, 400);
  EXPECT_EQ(Get("s.test", "/" + created->code() + "/qr").status, 404);  // not on this domain
  EXPECT_EQ(Get("s.test", "/NoSuchCode/qr").status, 404);

  HttpAnswer robots = Get("s.test", "/robots.txt");
  EXPECT_EQ(robots.status, 200);
  EXPECT_EQ(robots.body, "User-agent: *\nDisallow: /\n");
}

// The periodic reload racing AddDomain's own: the domain just added never disappears again.
TEST(DomainTableTest, AReloadThatReadBeforeAnAddNeverHidesTheAdd) {
  TempDir dir;
  LinkStore store(SqliteLinkDatabase((dir.path() / "links.db").string(), 4));
  ASSERT_TRUE(store.Initialize().ok());
  DomainStore domains(store.pool());
  DomainTable table(&domains);
  // Stopped and joined however the test ends.
  std::jthread reloader([&](std::stop_token stop) {
    while (!stop.stop_requested()) ASSERT_TRUE(table.Reload().ok());
  });
  for (int i = 0; i < 200; ++i) {
    const std::string domain = "d" + std::to_string(i) + ".example";
    DomainRecord added;
    ASSERT_TRUE(domains.Add(1, domain, WallMs(), &added).ok());
    ASSERT_TRUE(table.Reload().ok());
    ASSERT_EQ(table.DomainOfHost(domain), domain) << i;
    ASSERT_EQ(table.DomainOfHost("D" + std::to_string(i) + ".example.:443"), domain);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, ShortLinkLinksTest,
                         ::testing::Values(Backend::kEmbedded, Backend::kRedisMariaDb),
                         BackendName);

}  // namespace
}  // namespace ferry::shortlink::testing
