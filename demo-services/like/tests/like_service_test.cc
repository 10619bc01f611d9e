// The provider in-process (ferry::Server + LikeApp) through the generated proxy and the JSON
// gateway, over both backends; and the reconciler's report and repair of injected drift.

#include <gtest/gtest.h>
#include <hiredis.h>

#include "ferry/storage/mariadb_connection.h"
#include "ferry/storage/sqlite_connection.h"
#include "like_test_support.h"
#include "raw_http_client.h"
#include "storage/redis_like_keys.h"

namespace ferry::like::testing {
namespace {

SetLikeRequest Like(int64_t content, const std::string& user, bool liked) {
  SetLikeRequest request;
  request.set_content_id(content);
  request.set_user_id(user);
  request.set_liked(liked);
  request.set_request_id(user + "-" + std::to_string(content));
  return request;
}

class LikeServiceTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() != "embedded") {
      SharedServers::Start();
      ASSERT_TRUE(SharedServers::FlushRedis());
    }
    config_ = ConfigFor(GetParam(), dir_.path());
  }
  void Start() { provider_.Start(config_); }
  LikeServiceProxy& proxy() { return provider_.proxy(); }

  TempDir dir_;
  LikeConfig config_;
  InProcessProvider provider_;
};

TEST_P(LikeServiceTest, SetLikeAnswersTheChangeAndTheCount) {
  Start();
  auto first = proxy().SetLike(Like(5, "ann", true), AsUser("ann"));
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_TRUE(first->changed());
  EXPECT_EQ(first->count(), 1);
  auto retry = proxy().SetLike(Like(5, "ann", true), AsUser("ann"));
  ASSERT_TRUE(retry.ok()) << retry.status();
  EXPECT_FALSE(retry->changed());
  EXPECT_EQ(retry->count(), 1);
  ASSERT_TRUE(proxy().SetLike(Like(5, "ben", true), AsUser("ben")).ok());
  ASSERT_TRUE(proxy().SetLike(Like(6, "ben", true), AsUser("ben")).ok());

  ASSERT_TRUE(Drain(provider_.app()).ok());  // database-first: the counts follow the relay
  GetCountsRequest counts;
  for (int64_t id : {5, 6, 7}) counts.add_content_ids(id);
  auto got = proxy().GetCounts(counts);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(std::vector<int64_t>(got->counts().begin(), got->counts().end()),
            (std::vector<int64_t>{2, 1, 0}));

  HasLikedRequest has;
  has.set_user_id("ben");
  for (int64_t id : {5, 6, 7}) has.add_content_ids(id);
  auto liked = proxy().HasLiked(has, AsUser("ben"));
  ASSERT_TRUE(liked.ok()) << liked.status();
  EXPECT_EQ(std::vector<bool>(liked->liked().begin(), liked->liked().end()),
            (std::vector<bool>{true, true, false}));

  ASSERT_TRUE(Drain(provider_.app()).ok());
  ListLikersRequest likers;
  likers.set_content_id(5);
  likers.set_page_size(1);
  auto page = proxy().ListLikers(likers);
  ASSERT_TRUE(page.ok()) << page.status();
  ASSERT_EQ(page->user_ids_size(), 1);
  EXPECT_EQ(page->user_ids(0), "ann");
  likers.set_page_token(page->next_page_token());
  page = proxy().ListLikers(likers);
  ASSERT_TRUE(page.ok()) << page.status();
  ASSERT_EQ(page->user_ids_size(), 1);
  EXPECT_EQ(page->user_ids(0), "ben");

  ListLikedRequest mine;
  mine.set_user_id("ben");
  auto contents = proxy().ListLiked(mine, AsUser("ben"));
  ASSERT_TRUE(contents.ok()) << contents.status();
  EXPECT_EQ(std::vector<int64_t>(contents->content_ids().begin(), contents->content_ids().end()),
            (std::vector<int64_t>{5, 6}));
  EXPECT_EQ(contents->next_page_token(), "");
}

TEST_P(LikeServiceTest, BadRequestsAreRefusedWithTheReason) {
  Start();
  auto no_content = proxy().SetLike(Like(0, "ann", true), AsUser("ann"));
  EXPECT_EQ(no_content.status().code(), StatusCode::INVALID_ARGUMENT);
  GetCountsRequest too_many;
  for (int i = 1; i <= kMaxBatch + 1; ++i) too_many.add_content_ids(i);
  auto refused = proxy().GetCounts(too_many);
  EXPECT_EQ(refused.status().code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(refused.status().message().find("at most 100"), std::string::npos) << refused.status();
  ListLikedRequest bad_token;
  bad_token.set_user_id("ann");
  bad_token.set_page_token("zz");
  EXPECT_EQ(proxy().ListLiked(bad_token, AsUser("ann")).status().code(),
            StatusCode::INVALID_ARGUMENT);
}

TEST_P(LikeServiceTest, TheUserIsTheTokensNeverARequestField) {
  Start();
  auto anonymous = proxy().SetLike(Like(4, "ann", true));
  EXPECT_EQ(anonymous.status().code(), StatusCode::UNAUTHENTICATED) << anonymous.status();
  auto impostor = proxy().SetLike(Like(4, "ann", true), AsUser("mallory"));
  EXPECT_EQ(impostor.status().code(), StatusCode::PERMISSION_DENIED) << impostor.status();
  HasLikedRequest peek;
  peek.set_user_id("ann");
  peek.add_content_ids(4);
  EXPECT_EQ(proxy().HasLiked(peek, AsUser("mallory")).status().code(),
            StatusCode::PERMISSION_DENIED);
  ListLikedRequest list;
  list.set_user_id("ann");
  EXPECT_EQ(proxy().ListLiked(list, AsUser("mallory")).status().code(),
            StatusCode::PERMISSION_DENIED);
  // The field may be left out: the token says who.
  auto own = proxy().SetLike(Like(4, "", true), AsUser("ann"));
  ASSERT_TRUE(own.ok()) << own.status();
  EXPECT_TRUE(own->changed());
  HasLikedRequest mine;
  mine.add_content_ids(4);
  auto liked = proxy().HasLiked(mine, AsUser("ann"));
  ASSERT_TRUE(liked.ok()) << liked.status();
  ASSERT_EQ(liked->liked_size(), 1);
  EXPECT_TRUE(liked->liked(0));
  ASSERT_TRUE(Drain(provider_.app()).ok());
  GetCountsRequest counts;
  counts.add_content_ids(4);
  auto public_count = proxy().GetCounts(counts);  // public: no token needed
  ASSERT_TRUE(public_count.ok()) << public_count.status();
  EXPECT_EQ(public_count->counts(0), 1);
}

TEST_P(LikeServiceTest, TheJsonGatewayServesTheSameCalls) {
  Start();
  http_test::RawHttpClient http(provider_.port());
  ASSERT_TRUE(http.connected());
  ASSERT_TRUE(http.Send(http_test::Request("POST", "/ferry.like.LikeService/SetLike",
                                           R"({"contentId":"8","userId":"json","liked":true})",
                                           "Content-Type: application/json\r\n"
                                           "X-Ferry-Attachment-User-Token: " +
                                               UserToken("json") + "\r\n")));
  auto response = http.Read();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 200) << response->body;
  EXPECT_EQ(response->body, R"({"changed":true,"count":"1"})");
  ASSERT_TRUE(Drain(provider_.app()).ok());
  ASSERT_TRUE(http.Send(http_test::Request("POST", "/ferry.like.LikeService/GetCounts",
                                           R"({"contentIds":["8","9"]})")));
  response = http.Read();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 200) << response->body;
  EXPECT_EQ(response->body, R"({"counts":["1","0"]})");
}

TEST_P(LikeServiceTest, ReconcileReportsDriftAndRepairsItFromTheDatabase) {
  Start();
  for (int i = 0; i < 10; ++i)
    ASSERT_TRUE(
        proxy()
            .SetLike(Like(21, "r" + std::to_string(i), true), AsUser("r" + std::to_string(i)))
            .ok());
  ASSERT_TRUE(Drain(provider_.app()).ok());
  ReconcileRequest request;
  request.set_content_id(21);
  auto clean = proxy().Reconcile(request);
  ASSERT_TRUE(clean.ok()) << clean.status();
  EXPECT_EQ(clean->violations_size(), 0) << clean->ShortDebugString();

  // Drift: a count row (and, on redis+mariadb, a bucket's count string) that lies.
  if (GetParam() == "embedded") {
    std::unique_ptr<storage::SqlConnection> c;
    ASSERT_TRUE(storage::SqliteConnection::Open({.path = config_.sqlite_path}, &c).ok());
    ASSERT_TRUE(
        c->Execute("UPDATE like_count SET count = count + 5 WHERE content_id = 21", {}).ok());
  } else {
    const timeval timeout{.tv_sec = 5, .tv_usec = 0};
    redisContext* r = redisConnectWithTimeout(SharedServers::redis().host().c_str(),
                                              SharedServers::redis().port(), timeout);
    const std::string key = BucketKeys::For(21, 0).count;
    freeReplyObject(redisCommand(r, "INCRBY %s 7", key.c_str()));
    redisFree(r);
  }
  auto drift = proxy().Reconcile(request);
  ASSERT_TRUE(drift.ok()) << drift.status();
  EXPECT_EQ(drift->violations_size(), 1) << drift->ShortDebugString();
  EXPECT_FALSE(drift->repaired());

  request.set_repair(true);
  auto repaired = proxy().Reconcile(request);
  ASSERT_TRUE(repaired.ok()) << repaired.status();
  EXPECT_TRUE(repaired->repaired());
  request.set_repair(false);
  auto after = proxy().Reconcile(request);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(after->violations_size(), 0) << after->ShortDebugString();
  ExpectAllLevels(provider_.app(), 21, 10);
}

TEST_P(LikeServiceTest, TheReconcilerJobRepairsDriftOnItsOwn) {
  config_.reconcile_interval_ms = 20;
  config_.reconcile_repair = true;
  Start();
  for (int i = 0; i < 6; ++i) {
    ASSERT_TRUE(
        proxy()
            .SetLike(Like(22, "j" + std::to_string(i), true), AsUser("j" + std::to_string(i)))
            .ok());
  }
  ASSERT_TRUE(Drain(provider_.app()).ok());
  // A count row that lies, in the database every backend has.
  LikeConfig c = config_;
  std::unique_ptr<storage::SqlConnection> sql;
  if (GetParam() == "embedded") {
    ASSERT_TRUE(storage::SqliteConnection::Open({.path = c.sqlite_path}, &sql).ok());
  } else {
    ASSERT_TRUE(storage::MariaDbConnection::Open(c.mariadb, &sql).ok());
  }
  ASSERT_TRUE(
      sql->Execute("UPDATE like_count SET count = count + 3 WHERE content_id = 22", {}).ok());
  ReconcileRequest request;
  request.set_content_id(22);
  ReconcileResponse last;
  EXPECT_TRUE(Eventually([&] {
    auto r = proxy().Reconcile(request);
    if (r.ok()) last = *r;
    return r.ok() && r->violations_size() == 0 && r->database_count() == 6;
  })) << last.ShortDebugString();
}

INSTANTIATE_TEST_SUITE_P(Backends, LikeServiceTest,
                         ::testing::Values("embedded", "redis+mariadb", "database-first"),
                         [](const auto& info) {
                           return info.param == "embedded"        ? std::string("Embedded")
                                  : info.param == "redis+mariadb" ? std::string("RedisFirst")
                                                                  : std::string("DatabaseFirst");
                         });

}  // namespace
}  // namespace ferry::like::testing
