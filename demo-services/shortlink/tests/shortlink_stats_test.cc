#include <gtest/gtest.h>
#include <hiredis.h>

#include <thread>

#include "ferry/storage/redis_connection_pool.h"
#include "service/shortlink_metrics.h"
#include "service/visit_facts.h"
#include "service/visit_log.h"
#include "shortlink_test_support.h"
#include "storage/link_store.h"

namespace ferry::shortlink::testing {
namespace {

using namespace std::chrono_literals;

constexpr std::string_view kBrowser = "User-Agent: Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0";

// Device classes or browser families with their PVs, as LinkStats has them.
using NameCounts = std::vector<std::pair<std::string, int64_t>>;

// Waits until `done` holds for the link's Stats, or 20 s; the last answer.
StatsResponse WaitForStats(ShortLinkServiceProxy& proxy, const std::string& key,
                           const std::string& code,
                           const std::function<bool(const StatsResponse&)>& done) {
  StatsRequest request;
  request.set_code(code);
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  StatsResponse last;
  while (std::chrono::steady_clock::now() < deadline) {
    auto r = proxy.Stats(request, WithToken(key));
    EXPECT_TRUE(r.ok()) << r.status();
    if (!r.ok()) return last;
    last = *r;
    if (done(last)) return last;
    std::this_thread::sleep_for(10ms);
  }
  ADD_FAILURE() << "stats did not settle: pv " << last.pv() << " bots " << last.bot_visits();
  return last;
}

// Everything recorded appended and consumed: later counts can only come from double counting.
void Settle(ShortLinkApp& app) {
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (app.visits().appended() + app.visits().dropped() < app.visits().recorded()) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline);
    std::this_thread::sleep_for(5ms);
  }
  bool more = true;
  while (more) ASSERT_TRUE(app.ConsumeStatsOnce(&more).ok());
}

class ShortLinkStatsTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    provider_.Start(ConfigFor(GetParam(), dir_.path()));
    key_ = NewTenantKey(provider_.proxy(), "acme");
    ASSERT_FALSE(key_.empty());
    CreateLinkRequest request;
    request.set_request_id("r1");
    request.set_long_url("https://example.com/landing");
    auto created = provider_.proxy().CreateLink(request, WithToken(key_));
    ASSERT_TRUE(created.ok()) << created.status();
    code_ = created->code();
  }
  int Visit(const std::vector<std::string>& headers) {
    return HttpCall(provider_.port(), "GET", "/" + code_, headers).status;
  }

  TempDir dir_;
  InProcessProvider provider_;
  std::string key_;
  std::string code_;
};

// PV equals the 302s once settled; each (IP, user agent) is one visitor of the day; referrers by
// host; link-preview fetchers and command-line clients counted apart; HEAD counts nothing.
TEST_P(ShortLinkStatsTest, PvIsTheNumberOf302sWithVisitorsReferrersAndBotsApart) {
  int redirects = 0;
  auto visit = [&](const std::vector<std::string>& headers) {
    if (Visit(headers) == 302) ++redirects;
  };
  for (int i = 0; i < 10; ++i) {
    visit({std::string(kBrowser)});
    visit({"User-Agent: Mozilla/5.0 (Macintosh) Safari/17", "Referer: https://News.Example/a?b"});
    visit({"User-Agent: Mozilla/5.0 (Windows) Chrome/130", "Referer: https://mail.example/"});
  }
  for (const char* bot : {"Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
                          "facebookexternalhit/1.1", "Twitterbot/1.0", "curl/8.5.0"}) {
    visit({std::string("User-Agent: ") + bot});
  }
  EXPECT_EQ(HttpCall(provider_.port(), "HEAD", "/" + code_, {std::string(kBrowser)}).status, 302);
  ASSERT_EQ(redirects, 34);

  StatsResponse stats = WaitForStats(provider_.proxy(), key_, code_, [](const StatsResponse& s) {
    return s.pv() + s.bot_visits() >= 34;
  });
  Settle(provider_.app());
  stats = WaitForStats(provider_.proxy(), key_, code_, [](const StatsResponse&) { return true; });
  EXPECT_EQ(stats.pv(), 30);
  EXPECT_EQ(stats.bot_visits(), 4);
  EXPECT_EQ(stats.uv(), 3);
  ASSERT_EQ(stats.days_size(), 1);
  EXPECT_EQ(stats.days(0).day(), UtcDay(WallMs()));
  EXPECT_EQ(stats.days(0).pv(), 30);
  ASSERT_EQ(stats.referrers_size(), 2);
  EXPECT_EQ(stats.referrers(0).host(), "mail.example");
  EXPECT_EQ(stats.referrers(0).pv(), 10);
  EXPECT_EQ(stats.referrers(1).host(), "news.example");
  EXPECT_EQ(stats.referrers(1).pv(), 10);

  StatsRequest yesterday;
  yesterday.set_code(code_);
  yesterday.set_from_ms(WallMs() - 2 * 86'400'000);
  yesterday.set_to_ms(WallMs() - 86'400'000 - 1);
  auto none = provider_.proxy().Stats(yesterday, WithToken(key_));
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->pv(), 0);
}

// Behind a trusted reverse proxy, visitors are the clients it forwards for: two of them with
// the same browser are two visitors, not the proxy's one. A direct visitor's header is ignored.
TEST_P(ShortLinkStatsTest, VisitorsBehindATrustedProxyAreTheClientsItForwardsFor) {
  InProcessProvider behind_proxy;
  behind_proxy.Serve(&provider_.app(), {"127.0.0.1/32"});
  for (const char* client : {"203.0.113.7", "203.0.113.8", "203.0.113.7"}) {
    EXPECT_EQ(HttpCall(behind_proxy.port(), "GET", "/" + code_,
                       {std::string(kBrowser), std::string("X-Forwarded-For: ") + client})
                  .status,
              302);
  }
  // Straight to the provider that trusts nobody: the header is the visitor's own say-so.
  EXPECT_EQ(Visit({std::string(kBrowser), "X-Forwarded-For: 198.51.100.1"}), 302);
  EXPECT_EQ(Visit({std::string(kBrowser), "X-Forwarded-For: 198.51.100.2"}), 302);
  Settle(provider_.app());
  // Until the five visits are counted (the batch of a visit through the second server may
  // still be on its way); more would be a double count, which the equality catches.
  const StatsResponse stats = WaitForStats(provider_.proxy(), key_, code_,
                                           [](const StatsResponse& s) { return s.pv() >= 5; });
  EXPECT_EQ(stats.pv(), 5);
  EXPECT_EQ(stats.uv(), 3);
}

// The same event applied twice (a redelivery, a replay) counts once.
TEST_P(ShortLinkStatsTest, ARedeliveredEventCountsOnce) {
  const VisitEvent event{.event_id = "replayed-1",
                         .code = code_,
                         .at_ms = WallMs(),
                         .visitor = "0123456789abcdef",
                         .referrer_host = "news.example"};
  int counted = 0;
  ASSERT_TRUE(provider_.app().stats().Apply({event, event}, WallMs(), &counted).ok());
  EXPECT_EQ(counted, 1);
  ASSERT_TRUE(provider_.app().stats().Apply({event}, WallMs(), &counted).ok());
  EXPECT_EQ(counted, 0);
  StatsResponse stats =
      WaitForStats(provider_.proxy(), key_, code_, [](const StatsResponse&) { return true; });
  EXPECT_EQ(stats.pv(), 1);
  EXPECT_EQ(stats.uv(), 1);
  ASSERT_EQ(stats.referrers_size(), 1);
  EXPECT_EQ(stats.referrers(0).pv(), 1);
}

// A day's UV is exact for its first thousand visitors, then estimated (HyperLogLog, within
// three standard errors) from a row whose size no longer grows; repeat visitors add nothing.
TEST_P(ShortLinkStatsTest, UvIsExactForAThousandVisitorsADayThenEstimated) {
  auto apply = [&](int from, int to, const std::string& prefix) {
    std::vector<VisitEvent> events;
    for (int i = from; i < to; ++i) {
      events.push_back(VisitEvent{
          .event_id = prefix + std::to_string(i),
          .code = code_,
          .at_ms = WallMs(),
          .visitor = VisitorHash("secret", "2026-01-01", "10.0." + std::to_string(i), "ua")});
    }
    int counted = 0;
    ASSERT_TRUE(provider_.app().stats().Apply(events, WallMs(), &counted).ok());
    ASSERT_EQ(counted, to - from);
  };
  auto uv = [&] {
    return WaitForStats(provider_.proxy(), key_, code_, [](const StatsResponse&) { return true; })
        .uv();
  };
  for (int from = 0; from < 1000; from += 250) apply(from, from + 250, "a");
  apply(0, 1000, "again");  // the same visitors, other visits
  EXPECT_EQ(uv(), 1000);
  for (int from = 1000; from < 6000; from += 500) apply(from, from + 500, "a");
  const int64_t estimate = uv();
  EXPECT_NEAR(estimate, 6000, 6000 * 0.024);
  apply(0, 6000, "third");
  EXPECT_EQ(uv(), estimate);
}

// Two consumers counting batches of 1,200 links each (more than one statement's rows), with
// every link in both, at once: each link ends with every visit, visitor and referrer once.
TEST_P(ShortLinkStatsTest, ConcurrentBatchesOfManyLinksCountEveryVisitOnce) {
  constexpr int kLinks = 1200;
  constexpr int kBatches = 3;
  auto consumer = [&](int t) {
    for (int b = 0; b < kBatches; ++b) {
      std::vector<VisitEvent> events;
      for (int k = 0; k < kLinks; ++k) {
        for (int j = 0; j < 2; ++j) {
          const std::string id = std::to_string(t) + "-" + std::to_string(b) + "-" +
                                 std::to_string(k) + "-" + std::to_string(j);
          events.push_back(VisitEvent{.event_id = "many-" + id,
                                      .code = "m" + std::to_string(k),
                                      .at_ms = WallMs(),
                                      .visitor = VisitorHash("secret", "2026-01-01", id, "ua"),
                                      .referrer_host = "r.example"});
        }
      }
      int counted = 0;
      Status s = provider_.app().stats().Apply(events, WallMs(), &counted);
      EXPECT_TRUE(s.ok()) << s;
      EXPECT_EQ(counted, 2 * kLinks);
    }
  };
  std::thread first(consumer, 0);
  std::thread second(consumer, 1);
  first.join();
  second.join();
  const std::string today = UtcDay(WallMs());
  for (int k = 0; k < kLinks; k += 97) {
    LinkStats stats;
    ASSERT_TRUE(
        provider_.app().stats().Read("m" + std::to_string(k), today, today, 20, &stats).ok());
    ASSERT_EQ(stats.days.size(), 1u) << k;
    EXPECT_EQ(stats.days[0].pv, 2 * kBatches * 2) << k;
    EXPECT_EQ(stats.days[0].uv, 2 * kBatches * 2) << k;
    ASSERT_EQ(stats.referrers.size(), 1u) << k;
    EXPECT_EQ(stats.referrers[0].second, 2 * kBatches * 2) << k;
  }
}

// A Referer whose host is an IDN, percent-encoded ("é.example"), is counted with its punycode
// host; the visits around it are counted too (the ASCII host column refused it raw and, with
// it, its whole batch).
TEST_P(ShortLinkStatsTest, AnIdnRefererIsCountedAsPunycodeAndPoisonsNoBatch) {
  for (int i = 0; i < 100; ++i) ASSERT_EQ(Visit({std::string(kBrowser)}), 302);
  ASSERT_EQ(Visit({std::string(kBrowser), "Referer: http://%C3%A9.example/"}), 302);
  ASSERT_EQ(Visit({std::string(kBrowser), "Referer: http://bad%00host.example/"}), 302);
  WaitForStats(provider_.proxy(), key_, code_,
               [](const StatsResponse& s) { return s.pv() >= 102; });
  Settle(provider_.app());
  StatsResponse stats =
      WaitForStats(provider_.proxy(), key_, code_, [](const StatsResponse&) { return true; });
  EXPECT_EQ(stats.pv(), 102);
  ASSERT_EQ(stats.referrers_size(), 1);  // the host with a NUL is dropped, its visit counted
  EXPECT_EQ(stats.referrers(0).host(), "xn--9ca.example");
  EXPECT_EQ(stats.referrers(0).pv(), 1);
}

// Visits count for every link: GetLink shows an unlimited link's redirects, and a limit added
// later counts them (5 visits, then max_visits 5: used up).
TEST_P(ShortLinkStatsTest, ALimitAddedLaterCountsTheVisitsBeforeIt) {
  for (int i = 0; i < 5; ++i) ASSERT_EQ(Visit({std::string(kBrowser)}), 302);
  WaitForStats(provider_.proxy(), key_, code_, [](const StatsResponse& s) { return s.pv() >= 5; });
  CodeRequest get;
  get.set_code(code_);
  auto link = provider_.proxy().GetLink(get, WithToken(key_));
  ASSERT_TRUE(link.ok()) << link.status();
  EXPECT_EQ(link->visits(), 5);
  UpdateLinkRequest limit;
  limit.set_code(code_);
  limit.set_max_visits(5);
  auto limited = provider_.proxy().UpdateLink(limit, WithToken(key_));
  ASSERT_TRUE(limited.ok()) << limited.status();
  EXPECT_EQ(limited->visits(), 5);
  EXPECT_EQ(Visit({std::string(kBrowser)}), 410);
  limit.set_max_visits(6);
  ASSERT_TRUE(provider_.proxy().UpdateLink(limit, WithToken(key_)).ok());
  EXPECT_EQ(Visit({std::string(kBrowser)}), 302);
  EXPECT_EQ(Visit({std::string(kBrowser)}), 410);
}

// DeleteLink erases the link's statistics, and visits still on their way do not bring them back;
// event ids older than the retention are forgotten by the cleanup.
TEST_P(ShortLinkStatsTest, ADeletedLinkLeavesNoStatisticsAndOldEventIdsAreForgotten) {
  for (int i = 0; i < 3; ++i) ASSERT_EQ(Visit({std::string(kBrowser)}), 302);
  WaitForStats(provider_.proxy(), key_, code_, [](const StatsResponse& s) { return s.pv() >= 3; });
  ASSERT_EQ(Visit({std::string(kBrowser)}), 302);  // on its way while the link is deleted
  CodeRequest request;
  request.set_code(code_);
  ASSERT_TRUE(provider_.proxy().DeleteLink(request, WithToken(key_)).ok());
  Settle(provider_.app());
  StatsResponse stats =
      WaitForStats(provider_.proxy(), key_, code_, [](const StatsResponse&) { return true; });
  EXPECT_EQ(stats.pv(), 0);
  EXPECT_EQ(stats.days_size(), 0);

  int forgotten = 0;
  ASSERT_TRUE(provider_.app().CleanupOnce(&forgotten).ok());
  EXPECT_EQ(forgotten, 0);  // counted just now: inside stats.event_retention_ms
  ASSERT_TRUE(provider_.app().stats().ForgetEventsBefore(WallMs() + 1, 2, &forgotten).ok());
  EXPECT_EQ(forgotten, 2);  // the oldest, at most `limit` a pass
  ASSERT_TRUE(provider_.app().stats().ForgetEventsBefore(WallMs() + 1, 100, &forgotten).ok());
  EXPECT_EQ(forgotten, 2);
}

// Each visit is counted under its device class and browser family (service/user_agent_class.h)
// per link and day, bots included (device "bot", no browser family); DeleteLink erases them.
TEST_P(ShortLinkStatsTest, VisitsAreCountedByDeviceClassAndBrowserFamily) {
  const std::string chrome =
      "User-Agent: Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like "
      "Gecko) Chrome/130.0.0.0 Safari/537.36";
  const std::string iphone =
      "User-Agent: Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 "
      "(KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1";
  const std::string googlebot =
      "User-Agent: Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
  for (int i = 0; i < 3; ++i) ASSERT_EQ(Visit({chrome}), 302);
  for (int i = 0; i < 2; ++i) ASSERT_EQ(Visit({iphone}), 302);
  ASSERT_EQ(Visit({googlebot}), 302);
  WaitForStats(provider_.proxy(), key_, code_,
               [](const StatsResponse& s) { return s.pv() + s.bot_visits() >= 6; });
  Settle(provider_.app());

  const std::string today = UtcDay(WallMs());
  LinkStats stats;
  ASSERT_TRUE(provider_.app().stats().Read(code_, today, today, 20, &stats).ok());
  ASSERT_EQ(stats.days.size(), 1u);
  EXPECT_EQ(stats.days[0].pv, 5);
  EXPECT_EQ(stats.days[0].bots, 1);
  EXPECT_EQ(stats.devices, (NameCounts{{"desktop", 3}, {"mobile", 2}, {"bot", 1}}));
  EXPECT_EQ(stats.browsers, (NameCounts{{"chrome", 3}, {"safari", 2}, {"other", 1}}));

  const std::string yesterday = UtcDay(WallMs() - 86'400'000);
  LinkStats none;
  ASSERT_TRUE(provider_.app().stats().Read(code_, yesterday, yesterday, 20, &none).ok());
  EXPECT_TRUE(none.devices.empty());
  EXPECT_TRUE(none.browsers.empty());

  CodeRequest request;
  request.set_code(code_);
  ASSERT_TRUE(provider_.proxy().DeleteLink(request, WithToken(key_)).ok());
  LinkStats erased;
  ASSERT_TRUE(provider_.app().stats().Read(code_, today, today, 20, &erased).ok());
  EXPECT_TRUE(erased.devices.empty());
  EXPECT_TRUE(erased.browsers.empty());
}

// An event without a device class and browser family (written by an older version) counts as
// "other" for both; the names are summed over the days read, highest PV first, ties by name.
TEST_P(ShortLinkStatsTest, DevicesAndBrowsersAreSummedOverTheDaysReadOlderEventsAsOther) {
  const int64_t now = WallMs();
  const int64_t day_before = now - 86'400'000;
  auto event = [&](const std::string& id, int64_t at_ms, const std::string& device,
                   const std::string& browser) {
    return VisitEvent{.event_id = id,
                      .code = code_,
                      .at_ms = at_ms,
                      .visitor = VisitorHash("secret", UtcDay(at_ms), id, "ua"),
                      .device = device,
                      .browser = browser};
  };
  int counted = 0;
  ASSERT_TRUE(provider_.app()
                  .stats()
                  .Apply({event("old", now, "", ""), event("tablet", now, "tablet", "firefox"),
                          event("before-1", day_before, "desktop", "edge"),
                          event("before-2", day_before, "desktop", "edge")},
                         now, &counted)
                  .ok());
  EXPECT_EQ(counted, 4);
  const std::string today = UtcDay(now);
  LinkStats stats;
  ASSERT_TRUE(provider_.app().stats().Read(code_, today, today, 20, &stats).ok());
  EXPECT_EQ(stats.devices, (NameCounts{{"other", 1}, {"tablet", 1}}));
  EXPECT_EQ(stats.browsers, (NameCounts{{"firefox", 1}, {"other", 1}}));
  LinkStats both;
  ASSERT_TRUE(provider_.app().stats().Read(code_, UtcDay(day_before), today, 20, &both).ok());
  EXPECT_EQ(both.devices, (NameCounts{{"desktop", 2}, {"other", 1}, {"tablet", 1}}));
  EXPECT_EQ(both.browsers, (NameCounts{{"edge", 2}, {"firefox", 1}, {"other", 1}}));
}

INSTANTIATE_TEST_SUITE_P(Backends, ShortLinkStatsTest,
                         ::testing::Values(Backend::kEmbedded, Backend::kRedisMariaDb),
                         BackendName);

// The statistics tables of an earlier version, on a fresh database: code columns of 64
// characters on MariaDB, an outbox without device and browser, and their rows.
class ShortLinkStatsUpgradeTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    const ShortLinkConfig config = ConfigFor(GetParam(), dir_.path());
    auto pool = [&] {
      return GetParam() == Backend::kEmbedded ? SqliteLinkDatabase(config.sqlite_path, 1)
                                              : MariaDbLinkDatabase(config.mariadb, 1);
    };
    db_ = pool();
    std::unique_ptr<storage::SqlConnectionPool::Lease> c;
    ASSERT_TRUE(db_->Acquire(&c).ok());
    const bool sqlite = GetParam() == Backend::kEmbedded;
    const std::string code = sqlite ? "code TEXT NOT NULL"
                                    : "code VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin "
                                      "NOT NULL";
    const std::string text = sqlite ? "TEXT" : "VARCHAR(255) CHARACTER SET ascii";
    const std::string integer = sqlite ? "INTEGER" : "BIGINT";
    Status s = (*c)->ExecuteScript(
        "CREATE TABLE shortlink_stat_days (" + code + ", day " + text + " NOT NULL, pv " + integer +
        " NOT NULL DEFAULT 0, uv " + integer + " NOT NULL DEFAULT 0, bots " + integer +
        " NOT NULL DEFAULT 0, visitors BLOB, PRIMARY KEY (code, day));"
        "CREATE TABLE shortlink_stat_referrers (" +
        code + ", day " + text + " NOT NULL, host " + text + " NOT NULL, pv " + integer +
        " NOT NULL DEFAULT 0, PRIMARY KEY (code, day, host));"
        "CREATE TABLE shortlink_visit_outbox (id " +
        (sqlite ? "INTEGER PRIMARY KEY AUTOINCREMENT"
                : "BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY") +
        ", event_id " + text + " NOT NULL, " + code + ", at_ms " + integer + " NOT NULL, visitor " +
        text + " NOT NULL, referrer_host " + text + " NOT NULL, bot " + integer + " NOT NULL)");
    ASSERT_TRUE(s.ok()) << s;
    s = (*c)->Execute(
        "INSERT INTO shortlink_stat_referrers (code, day, host, pv) VALUES ('old', ?, "
        "'news.example', 7)",
        {UtcDay(WallMs())});
    ASSERT_TRUE(s.ok()) << s;
    s = (*c)->Execute(
        "INSERT INTO shortlink_visit_outbox (event_id, code, at_ms, visitor, referrer_host, bot) "
        "VALUES ('queued-1', 'old', ?, '0123456789abcdef', '', 0)",
        {WallMs()});
    ASSERT_TRUE(s.ok()) << s;
    c.reset();
    links_ = std::make_unique<LinkStore>(pool());
    ASSERT_TRUE(links_->Initialize().ok());  // shortlink_links, read when counting
    stats_ = std::make_unique<StatsStore>(pool());
  }
  // CHARACTER_MAXIMUM_LENGTH of `table`.code (MariaDB).
  int64_t CodeWidth(const std::string& table) {
    std::unique_ptr<storage::SqlConnectionPool::Lease> c;
    EXPECT_TRUE(db_->Acquire(&c).ok());
    std::vector<storage::SqlRow> rows;
    EXPECT_TRUE((*c)->Query("SELECT CHARACTER_MAXIMUM_LENGTH FROM information_schema.COLUMNS "
                            "WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND "
                            "COLUMN_NAME = 'code'",
                            {table}, &rows)
                    .ok());
    return rows.size() == 1 ? storage::AsInt(rows[0][0]) : -1;
  }

  TempDir dir_;
  std::unique_ptr<storage::SqlConnectionPool> db_;
  std::unique_ptr<LinkStore> links_;
  std::unique_ptr<StatsStore> stats_;
};

// Initialize (twice: it is idempotent) adds the outbox's columns, whose old rows read as empty
// and count as "other", widens the code columns for "<domain>/<code>" keys and keeps the rows.
TEST_P(ShortLinkStatsUpgradeTest, InitializeAddsTheAgentColumnsAndWidensCodes) {
  if (GetParam() == Backend::kRedisMariaDb) {
    ASSERT_EQ(CodeWidth("shortlink_visit_outbox"), 64);
  }
  ASSERT_TRUE(stats_->Initialize().ok());
  ASSERT_TRUE(stats_->Initialize().ok());
  if (GetParam() == Backend::kRedisMariaDb) {
    for (const char* table : {"shortlink_stat_days", "shortlink_stat_referrers",
                              "shortlink_stat_agents", "shortlink_visit_outbox"}) {
      EXPECT_EQ(CodeWidth(table), 320) << table;
    }
  }
  std::vector<VisitEvent> queued;
  int64_t last_id = 0;
  ASSERT_TRUE(stats_->ReadOutbox(10, &queued, &last_id).ok());
  ASSERT_EQ(queued.size(), 1u);
  EXPECT_EQ(queued[0].event_id, "queued-1");
  EXPECT_EQ(queued[0].device, "");
  EXPECT_EQ(queued[0].browser, "");

  const std::string wide = "links.example.com/" + std::string(200, 'x');  // longer than 64
  const VisitEvent fresh{.event_id = "new-1",
                         .code = wide,
                         .at_ms = WallMs(),
                         .visitor = "0123456789abcdef",
                         .device = "mobile",
                         .browser = "samsung"};
  Status s = stats_->AppendOutbox({fresh});
  ASSERT_TRUE(s.ok()) << s;
  queued.clear();
  ASSERT_TRUE(stats_->ReadOutbox(10, &queued, &last_id).ok());
  ASSERT_EQ(queued.size(), 2u);
  EXPECT_EQ(queued[1].code, wide);
  EXPECT_EQ(queued[1].device, "mobile");
  EXPECT_EQ(queued[1].browser, "samsung");
  int counted = 0;
  s = stats_->Apply(queued, WallMs(), &counted, last_id);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(counted, 2);

  const std::string today = UtcDay(WallMs());
  LinkStats old;
  ASSERT_TRUE(stats_->Read("old", today, today, 20, &old).ok());
  ASSERT_EQ(old.days.size(), 1u);
  EXPECT_EQ(old.days[0].pv, 1);
  EXPECT_EQ(old.referrers, (NameCounts{{"news.example", 7}}));  // kept by the widening
  EXPECT_EQ(old.devices, (NameCounts{{"other", 1}}));
  EXPECT_EQ(old.browsers, (NameCounts{{"other", 1}}));
  LinkStats wide_stats;
  ASSERT_TRUE(stats_->Read(wide, today, today, 20, &wide_stats).ok());
  ASSERT_EQ(wide_stats.days.size(), 1u);
  EXPECT_EQ(wide_stats.days[0].pv, 1);
  EXPECT_EQ(wide_stats.devices, (NameCounts{{"mobile", 1}}));
  EXPECT_EQ(wide_stats.browsers, (NameCounts{{"samsung", 1}}));
  queued.clear();
  ASSERT_TRUE(stats_->ReadOutbox(10, &queued, &last_id).ok());
  EXPECT_TRUE(queued.empty());
}

INSTANTIATE_TEST_SUITE_P(Backends, ShortLinkStatsUpgradeTest,
                         ::testing::Values(Backend::kEmbedded, Backend::kRedisMariaDb),
                         BackendName);

// The stream entry's device and browser go and come back; an entry of an older version, without
// them, is read with both empty; a name longer than 16 characters makes the entry malformed.
TEST(VisitLogFieldsTest, DeviceAndBrowserRoundTripAndMayBeMissing) {
  const VisitEvent event{.event_id = "p-1",
                         .code = "abc",
                         .at_ms = 1'700'000'000'000,
                         .visitor = "0123456789abcdef",
                         .referrer_host = "news.example",
                         .bot = false,
                         .device = "mobile",
                         .browser = "safari"};
  auto pairs = [](const std::vector<std::string>& flat) {
    std::vector<std::pair<std::string, std::string>> out;
    for (size_t i = 0; i + 1 < flat.size(); i += 2) out.emplace_back(flat[i], flat[i + 1]);
    return out;
  };
  const std::vector<std::pair<std::string, std::string>> fields = pairs(StreamFields(event));
  VisitEvent back;
  ASSERT_TRUE(EventFromFields(fields, &back));
  EXPECT_EQ(back.event_id, "p-1");
  EXPECT_EQ(back.referrer_host, "news.example");
  EXPECT_EQ(back.device, "mobile");
  EXPECT_EQ(back.browser, "safari");

  std::vector<std::pair<std::string, std::string>> older;
  for (const auto& field : fields) {
    if (field.first != "device" && field.first != "browser") older.push_back(field);
  }
  ASSERT_EQ(older.size(), 6u);
  VisitEvent old_back;
  ASSERT_TRUE(EventFromFields(older, &old_back));
  EXPECT_EQ(old_back.event_id, "p-1");
  EXPECT_EQ(old_back.device, "");
  EXPECT_EQ(old_back.browser, "");

  for (const char* name : {"device", "browser"}) {
    VisitEvent too_long = event;
    (std::string(name) == "device" ? too_long.device : too_long.browser) = std::string(17, 'x');
    VisitEvent refused;
    EXPECT_FALSE(EventFromFields(pairs(StreamFields(too_long)), &refused)) << name;
    VisitEvent longest = event;
    (std::string(name) == "device" ? longest.device : longest.browser) = std::string(16, 'x');
    VisitEvent taken;
    EXPECT_TRUE(EventFromFields(pairs(StreamFields(longest)), &taken)) << name;
  }
}

// The provider's own stream and a hand-driven Redis client playing other group members.
class ShortLinkStatsStreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ShortLinkConfig config = ConfigFor(Backend::kRedisMariaDb, dir_.path());
    config.stats_interval_ms = 60'000;  // the test drives the consumer
    config.stats_claim_idle_ms = 50;
    config.stats_max_deliveries = 2;
    config.stats_stream_max_entries = 1000;
    provider_.Start(config);
    key_ = NewTenantKey(provider_.proxy(), "acme");
    CreateLinkRequest request;
    request.set_request_id("r1");
    request.set_long_url("https://example.com/landing");
    auto created = provider_.proxy().CreateLink(request, WithToken(key_));
    ASSERT_TRUE(created.ok()) << created.status();
    code_ = created->code();
    storage::RedisOptions options;
    options.host = SharedServers::redis().host();
    options.port = SharedServers::redis().port();
    redis_ = std::make_unique<storage::RedisConnectionPool>(options);
    Run({"XGROUP", "CREATE", "shortlink:visits", "shortlink-stats", "0", "MKSTREAM"});
  }
  storage::RedisReplyPtr Run(const std::vector<std::string>& command) {
    storage::RedisReplyPtr reply;
    EXPECT_TRUE(redis_->Run(command, &reply).ok());
    return reply;
  }
  void Add(const VisitEvent& event) {
    std::vector<std::string> command = {"XADD", "shortlink:visits", "*"};
    for (std::string& f : StreamFields(event)) command.push_back(std::move(f));
    Run(command);
  }
  VisitEvent Event(const std::string& id) {
    return VisitEvent{
        .event_id = id, .code = code_, .at_ms = WallMs(), .visitor = "0123456789abcdef"};
  }

  TempDir dir_;
  InProcessProvider provider_;
  std::string key_;
  std::string code_;
  std::unique_ptr<storage::RedisConnectionPool> redis_;
};

// A consumer that read entries and died is taken over after claim_idle_ms and its entries count
// once; an event delivered more than max_deliveries times, or malformed, goes to the dead-letter
// stream; a replayed entry counts once; every entry ends acknowledged.
TEST_F(ShortLinkStatsStreamTest, AbandonedEntriesAreClaimedPoisonIsDeadLetteredReplaysCountOnce) {
  Add(Event("abandoned"));
  Add(Event("too-often"));
  auto read = Run({"XREADGROUP", "GROUP", "shortlink-stats", "dead", "COUNT", "10", "STREAMS",
                   "shortlink:visits", ">"});
  ASSERT_EQ(read->type, REDIS_REPLY_ARRAY);
  const std::string too_often_id(
      storage::ReplyText(read->element[0]->element[1]->element[1]->element[0]));
  Run({"XCLAIM", "shortlink:visits", "shortlink-stats", "dead-too", "0", too_often_id});
  Add(Event("replayed"));
  Add(Event("replayed"));
  Run({"XADD", "shortlink:visits", "*", "id", "broken", "code", code_, "at", "soon"});

  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (true) {
    bool more = false;
    ASSERT_TRUE(provider_.app().ConsumeStatsOnce(&more).ok());
    auto pending = Run({"XPENDING", "shortlink:visits", "shortlink-stats"});
    if (pending->element[0]->integer == 0 && Run({"XLEN", "shortlink:visits"})->integer == 0) break;
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "entries left pending";
    std::this_thread::sleep_for(10ms);
  }
  StatsResponse stats =
      WaitForStats(provider_.proxy(), key_, code_, [](const StatsResponse&) { return true; });
  EXPECT_EQ(stats.pv(), 2);  // "abandoned" and "replayed", once each
  EXPECT_EQ(Run({"XLEN", "shortlink:visits:dead"})->integer, 2);  // "too-often" and "broken"
}

// Redis restarted empty: redirects keep answering from the database, the group is made again,
// and what was counted before is not counted again.
TEST_F(ShortLinkStatsStreamTest, RedisRestartedEmptyDoubleCountsNothing) {
  auto visit = [&] {
    return HttpCall(provider_.port(), "GET", "/" + code_, {std::string(kBrowser)}).status;
  };
  for (int i = 0; i < 10; ++i) ASSERT_EQ(visit(), 302);
  Settle(provider_.app());
  ASSERT_TRUE(SharedServers::redis().RestartEmpty());
  for (int i = 0; i < 10; ++i) ASSERT_EQ(visit(), 302);
  Settle(provider_.app());
  bool more = true;
  for (int i = 0; i < 3 || more; ++i) ASSERT_TRUE(provider_.app().ConsumeStatsOnce(&more).ok());
  StatsResponse stats =
      WaitForStats(provider_.proxy(), key_, code_, [](const StatsResponse&) { return true; });
  EXPECT_EQ(stats.pv(), 20);
  EXPECT_EQ(stats.uv(), 1);
}

// An event the database refuses (a host the ASCII column cannot hold, written to the stream by
// hand) is isolated: the 20 around it in its batch are counted at once, and it goes to the
// dead letters alone, with the database's reason, on its max_deliveries-th delivery.
TEST_F(ShortLinkStatsStreamTest, AnEventTheDatabaseRefusesIsIsolatedAndDeadLetteredAlone) {
  for (int i = 0; i < 10; ++i) Add(Event("before-" + std::to_string(i)));
  VisitEvent poison = Event("poison");
  poison.referrer_host = "\xC3\xA9.example";
  Add(poison);
  for (int i = 0; i < 10; ++i) Add(Event("after-" + std::to_string(i)));
  bool more = false;
  ASSERT_TRUE(provider_.app().ConsumeStatsOnce(&more).ok());
  StatsResponse stats =
      WaitForStats(provider_.proxy(), key_, code_, [](const StatsResponse&) { return true; });
  EXPECT_EQ(stats.pv(), 20);
  EXPECT_EQ(Run({"XLEN", "shortlink:visits"})->integer, 1);  // the poison, pending
  EXPECT_EQ(Run({"XLEN", "shortlink:visits:dead"})->integer, 0);

  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (Run({"XLEN", "shortlink:visits:dead"})->integer == 0) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the poison was never given up";
    std::this_thread::sleep_for(60ms);  // past claim_idle_ms
    ASSERT_TRUE(provider_.app().ConsumeStatsOnce(&more).ok());
  }
  EXPECT_EQ(Run({"XLEN", "shortlink:visits"})->integer, 0);
  auto dead = Run({"XRANGE", "shortlink:visits:dead", "-", "+"});
  ASSERT_EQ(dead->elements, 1u);
  const redisReply* fields = dead->element[0]->element[1];
  ASSERT_GE(fields->elements, 4u);
  EXPECT_EQ(storage::ReplyText(fields->element[2]), "reason");
  EXPECT_NE(storage::ReplyText(fields->element[3]).find("mariadb"), std::string_view::npos)
      << storage::ReplyText(fields->element[3]);
  stats = WaitForStats(provider_.proxy(), key_, code_, [](const StatsResponse&) { return true; });
  EXPECT_EQ(stats.pv(), 20);
}

// MariaDB down for many more claims than max_deliveries: the events wait, none is dead-lettered,
// and every one is counted once it is back.
TEST_F(ShortLinkStatsStreamTest, ADatabaseOutageNeverDeadLettersAnEvent) {
  for (int i = 0; i < 5; ++i) Add(Event("e" + std::to_string(i)));
  SharedServers::mariadb().Stop();
  for (int i = 0; i < 6; ++i) {  // max_deliveries is 2
    bool more = false;
    EXPECT_FALSE(provider_.app().ConsumeStatsOnce(&more).ok());
    std::this_thread::sleep_for(60ms);  // past claim_idle_ms: the next step claims them again
  }
  ASSERT_TRUE(SharedServers::mariadb().Start());
  EXPECT_EQ(Run({"XLEN", "shortlink:visits:dead"})->integer, 0);
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (Run({"XLEN", "shortlink:visits"})->integer > 0) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "events left in the stream";
    bool more = false;
    (void)provider_.app().ConsumeStatsOnce(&more);  // the first may meet a broken connection
    std::this_thread::sleep_for(60ms);
  }
  EXPECT_EQ(Run({"XLEN", "shortlink:visits:dead"})->integer, 0);
  // Each pooled connection from before the restart fails its next statement once.
  StatsRequest request;
  request.set_code(code_);
  Result<StatsResponse> stats = Status(StatusCode::UNAVAILABLE, "not asked yet");
  for (int i = 0; i < 16 && !stats.ok(); ++i)
    stats = provider_.proxy().Stats(request, WithToken(key_));
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->pv(), 5);
}

// A stream at stats.stream_max_entries takes no more visits and trims none: the recorder holds
// them back until the consumer made room, and every visit is counted.
TEST_F(ShortLinkStatsStreamTest, AFullVisitStreamHoldsVisitsBackAndTrimsNone) {
  std::vector<std::vector<std::string>> fill;
  for (int i = 0; i < 1000; ++i) {
    std::vector<std::string> command = {"XADD", "shortlink:visits", "*"};
    for (std::string& f : StreamFields(Event("fill-" + std::to_string(i)))) {
      command.push_back(std::move(f));
    }
    fill.push_back(std::move(command));
  }
  std::vector<storage::RedisReplyPtr> replies;
  ASSERT_TRUE(redis_->RunPipeline(fill, &replies).ok());
  Metrics().visit_stream_entries->Set(0);
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(HttpCall(provider_.port(), "GET", "/" + code_, {std::string(kBrowser)}).status, 302);
  }
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (Metrics().visit_stream_entries->Value() < 1000) {  // the recorder's refused append
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the recorder never tried";
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_EQ(Run({"XLEN", "shortlink:visits"})->integer, 1000);
  EXPECT_EQ(provider_.app().visits().appended(), 0u);
  EXPECT_EQ(provider_.app().visits().dropped(), 0u);
  bool more = true;
  while (more) ASSERT_TRUE(provider_.app().ConsumeStatsOnce(&more).ok());  // room again
  Settle(provider_.app());  // the recorder's next try gets in; counted
  StatsResponse stats = WaitForStats(provider_.proxy(), key_, code_,
                                     [](const StatsResponse& s) { return s.pv() >= 1005; });
  EXPECT_EQ(stats.pv(), 1005);
}

}  // namespace
}  // namespace ferry::shortlink::testing
