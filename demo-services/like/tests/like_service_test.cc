// The provider in-process (ferry::Server + LikeApp) through the generated proxy and the JSON
// gateway, over both backends; and the reconciler's report and repair of injected drift.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "ferry/plugins/user_token.h"
#include "ferry/storage/mariadb_connection.h"
#include "ferry/storage/sqlite_connection.h"
#include "like_test_support.h"
#include "raw_http_client.h"
#include "storage/bucket_layout.h"
#include "storage/redis_like_keys.h"

namespace ferry::like::testing {
namespace {

int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

SetLikeRequest Like(int64_t content, const std::string& user, bool liked,
                    const std::string& request_id = "") {
  SetLikeRequest request;
  request.set_content_id(content);
  request.set_user_id(user);
  request.set_liked(liked);
  request.set_request_id(request_id.empty() ? user + "-" + std::to_string(content) : request_id);
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
  auto first_version = [&](int64_t content, const std::string& user) {
    for (const LikeRow& row : RecordOf(*provider_.app().core().database, content).rows) {
      if (row.user_id == user) return row.version;
    }
    return int64_t{-1};
  };
  auto first = proxy().SetLike(Like(5, "ann", true), AsUser("ann"));
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_TRUE(first->changed());
  EXPECT_EQ(first->count(), 1);
  // A new request for the state the user already has changes nothing.
  auto again = proxy().SetLike(Like(5, "ann", true, "ann-5-again"), AsUser("ann"));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_FALSE(again->changed());
  EXPECT_EQ(again->count(), 1);
  ASSERT_TRUE(proxy().SetLike(Like(5, "ben", true), AsUser("ben")).ok());
  ASSERT_TRUE(proxy().SetLike(Like(6, "ben", true), AsUser("ben")).ok());

  ASSERT_EQ(Drain(provider_.app()), Status::Ok());  // database-first: the counts follow the relay
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

  ASSERT_EQ(Drain(provider_.app()), Status::Ok());
  ListLikersRequest likers;
  likers.set_content_id(5);
  likers.set_page_size(1);
  auto page = proxy().ListLikers(likers);  // newest first
  ASSERT_TRUE(page.ok()) << page.status();
  ASSERT_EQ(page->user_ids_size(), 1);
  EXPECT_EQ(page->user_ids(0), "ben");
  likers.set_page_token(page->next_page_token());
  page = proxy().ListLikers(likers);
  ASSERT_TRUE(page.ok()) << page.status();
  ASSERT_EQ(page->user_ids_size(), 1);
  EXPECT_EQ(page->user_ids(0), "ann");
  EXPECT_EQ(page->liked_at_us(0), first_version(5, "ann"));

  ListLikedRequest mine;
  mine.set_user_id("ben");
  auto contents = proxy().ListLiked(mine, AsUser("ben"));
  ASSERT_TRUE(contents.ok()) << contents.status();
  EXPECT_EQ(std::vector<int64_t>(contents->content_ids().begin(), contents->content_ids().end()),
            (std::vector<int64_t>{6, 5}));
  EXPECT_EQ(contents->next_page_token(), "");
}

// A request id seen before answers its first result and moves nothing, even after a later
// change of the pair: a retry that arrives late cannot undo the unlike that came after it.
// Reused with the other state, it is refused.
TEST_P(LikeServiceTest, AReplayedRequestAnswersItsFirstResultAndUndoesNothing) {
  Start();
  auto like = proxy().SetLike(Like(8, "ann", true, "r1"), AsUser("ann"));
  ASSERT_TRUE(like.ok()) << like.status();
  EXPECT_TRUE(like->changed());
  auto unlike = proxy().SetLike(Like(8, "ann", false, "r2"), AsUser("ann"));
  ASSERT_TRUE(unlike.ok()) << unlike.status();
  EXPECT_TRUE(unlike->changed());

  std::vector<std::thread> retries;
  std::atomic<int> first_answers{0};
  for (int i = 0; i < 8; ++i) {
    retries.emplace_back([&] {
      auto late = proxy().SetLike(Like(8, "ann", true, "r1"), AsUser("ann"));
      if (late.ok() && late->changed() && late->count() == 0) ++first_answers;
    });
  }
  for (std::thread& t : retries) t.join();
  EXPECT_EQ(first_answers.load(), 8);

  auto reused = proxy().SetLike(Like(8, "ann", false, "r1"), AsUser("ann"));
  EXPECT_EQ(reused.status().code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(reused.status().message().find("request_id 'r1'"), std::string::npos)
      << reused.status();

  HasLikedRequest has;
  has.add_content_ids(8);
  auto liked = proxy().HasLiked(has, AsUser("ann"));
  ASSERT_TRUE(liked.ok()) << liked.status();
  EXPECT_FALSE(liked->liked(0));
  ASSERT_EQ(Drain(provider_.app()), Status::Ok());
  ReconcileRequest check;
  check.set_content_id(8);
  auto report = proxy().Reconcile(check);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->database_likes(), 0);
  EXPECT_EQ(report->violations_size(), 0) << report->ShortDebugString();

  // Another user's request with the same id is their own.
  auto other = proxy().SetLike(Like(8, "ben", true, "r1"), AsUser("ben"));
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_TRUE(other->changed());
}

// Request ids are remembered for request_ids.ttl_ms, then forgotten: in Redis the key expires
// by itself; in the database the trim job deletes the rows, and the id is usable again.
TEST_P(LikeServiceTest, RequestIdsAreForgottenAfterTheirWindow) {
  config_.request_ttl_ms = 60000;
  Start();
  ASSERT_TRUE(proxy().SetLike(Like(9, "ann", true, "w1"), AsUser("ann")).ok());
  if (GetParam() == "redis+mariadb") {
    // The id lives in its window's hash, which expires two windows (and a clock slack) later.
    const BucketKeys keys = provider_.app().core().redis->KeysOf(
        9, BucketLayout::BucketIn("ann", config_.default_buckets));
    const int64_t window = WallMs() / 60000;
    long long ttl = RedisInteger({"PTTL", keys.RequestWindow(window)});
    if (ttl < 0) ttl = RedisInteger({"PTTL", keys.RequestWindow(window - 1)});
    EXPECT_GT(ttl, 60000);
    EXPECT_LE(ttl, 2 * 60000 + 10000);
    return;
  }
  int64_t deleted = 0;
  ASSERT_TRUE(provider_.app().core().database->TrimRequests(WallMs() + 1, 10000, &deleted).ok());
  EXPECT_EQ(deleted, 1);
  auto reused = proxy().SetLike(Like(9, "ann", false, "w1"), AsUser("ann"));
  ASSERT_TRUE(reused.ok()) << reused.status();
  EXPECT_TRUE(reused->changed());
}

TEST_P(LikeServiceTest, BadRequestsAreRefusedWithTheReason) {
  Start();
  auto no_content = proxy().SetLike(Like(0, "ann", true), AsUser("ann"));
  EXPECT_EQ(no_content.status().code(), StatusCode::INVALID_ARGUMENT);
  auto long_id = proxy().SetLike(Like(1, "ann", true, std::string(129, 'r')), AsUser("ann"));
  EXPECT_EQ(long_id.status().code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(long_id.status().message().find("request_id: at most 128"), std::string::npos)
      << long_id.status();
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
  ASSERT_EQ(Drain(provider_.app()), Status::Ok());
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
  ASSERT_EQ(Drain(provider_.app()), Status::Ok());
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
  ASSERT_EQ(Drain(provider_.app()), Status::Ok());
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
    ASSERT_EQ(RedisInteger({"INCRBY", provider_.app().core().redis->KeysOf(21, 0).count, "7"}),
              RedisInteger({"SCARD", provider_.app().core().redis->KeysOf(21, 0).members}) + 7);
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
  ASSERT_EQ(Drain(provider_.app()), Status::Ok());
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

// Every real change the record took, once, in each pair's order, through the feed's RPC.
TEST_P(LikeServiceTest, TheChangeFeedHasEveryChangeOnceInEachPairsOrder) {
  Start();
  int changes = 0;
  for (int i = 0; i < 40; ++i) {
    const std::string user = "feed" + std::to_string(i % 7);
    auto r =
        proxy().SetLike(Like(30 + i % 3, user, i % 5 != 0, "f" + std::to_string(i)), AsUser(user));
    ASSERT_TRUE(r.ok()) << r.status();
    changes += r->changed() ? 1 : 0;
  }
  ASSERT_EQ(Drain(provider_.app()), Status::Ok());
  ListChangesRequest request;
  request.set_page_size(5);
  auto first = proxy().ListChanges(request);
  ASSERT_TRUE(first.ok()) << first.status();
  const uint32_t partitions = first->partitions();
  ASSERT_GE(partitions, 1u);
  std::map<std::pair<int64_t, std::string>, int64_t> last;
  int seen = 0;
  for (uint32_t p = 0; p < partitions; ++p) {
    request.set_partition(p);
    request.set_after_seq(0);
    while (true) {
      auto page = proxy().ListChanges(request);
      ASSERT_TRUE(page.ok()) << page.status();
      for (const Change& c : page->changes()) {
        EXPECT_EQ(c.seq(), request.after_seq() + 1) << "partition " << p << ": a gap";
        request.set_after_seq(c.seq());
        int64_t& v = last[{c.content_id(), c.user_id()}];
        EXPECT_GT(c.version(), v);
        v = c.version();
        ++seen;
      }
      if (page->changes_size() < 5) break;
    }
  }
  EXPECT_EQ(seen, changes);
  request.set_partition(partitions);
  EXPECT_EQ(proxy().ListChanges(request).status().code(), StatusCode::INVALID_ARGUMENT);
}

// Account deletion: every like of the user is undone, those Redis held but the record had not
// taken yet included; each count drops by one, others' likes stay.
TEST_P(LikeServiceTest, DeleteUserUnlikesEverythingAndCountsDrop) {
  config_.writer_threads = 1;
  Start();
  for (int64_t c = 1; c <= 30; ++c) {
    ASSERT_TRUE(proxy().SetLike(Like(100 + c, "gone", true), AsUser("gone")).ok());
    ASSERT_TRUE(proxy().SetLike(Like(100 + c, "stays", true), AsUser("stays")).ok());
  }
  DeleteUserRequest request;
  request.set_user_id("gone");
  auto started = proxy().DeleteUser(request);
  ASSERT_TRUE(started.ok()) << started.status();
  EXPECT_GT(started->requested_ms(), 0);
  DeleteUserResponse state;
  ASSERT_TRUE(Eventually([&] {
    EXPECT_TRUE(provider_.app().RunMaintenance().ok());
    auto r = proxy().DeleteUser(request);
    if (r.ok()) state = *r;
    return r.ok() && r->done_ms() > 0;
  })) << state.ShortDebugString();
  EXPECT_EQ(state.unliked(), 30);
  ASSERT_EQ(Drain(provider_.app()), Status::Ok());
  HasLikedRequest has;
  for (int64_t c = 1; c <= 30; ++c) has.add_content_ids(100 + c);
  auto liked = proxy().HasLiked(has, AsUser("gone"));
  ASSERT_TRUE(liked.ok()) << liked.status();
  for (bool l : liked->liked()) EXPECT_FALSE(l);
  ListLikedRequest list;
  auto listed = proxy().ListLiked(list, AsUser("gone"));
  ASSERT_TRUE(listed.ok()) << listed.status();
  EXPECT_EQ(listed->content_ids_size(), 0);
  for (int64_t c = 1; c <= 30; ++c) ExpectAllLevels(provider_.app(), 100 + c, 1);
}

// Reads of contents nobody liked leave nothing behind in Redis, and the record is asked about
// them once: a note in process answers the next reads.
TEST_P(LikeServiceTest, ReadsOfContentsNobodyLikedLeaveNothingBehind) {
  Start();
  auto read_everything = [&](int64_t first) {
    GetCountsRequest counts;
    HasLikedRequest has;
    for (int64_t id = first; id < first + kMaxBatch; ++id) {
      counts.add_content_ids(id);
      has.add_content_ids(id);
    }
    auto got = proxy().GetCounts(counts);
    ASSERT_TRUE(got.ok()) << got.status();
    for (int64_t n : got->counts()) EXPECT_EQ(n, 0);
    auto liked = proxy().HasLiked(has, AsUser("reader"));
    ASSERT_TRUE(liked.ok()) << liked.status();
    for (bool l : liked->liked()) EXPECT_FALSE(l);
    ListLikersRequest likers;
    likers.set_content_id(first);
    auto page = proxy().ListLikers(likers);
    ASSERT_TRUE(page.ok()) << page.status();
    EXPECT_EQ(page->user_ids_size(), 0);
  };
  if (GetParam() == "embedded") {
    read_everything(500000);
    EXPECT_EQ(RecordOf(*provider_.app().core().database, 500000).rows.size(), 0u);
    return;
  }
  const long long keys_before = RedisInteger({"DBSIZE"});
  read_everything(500000);
  EXPECT_EQ(RedisInteger({"DBSIZE"}), keys_before);
  if (GetParam() != "redis+mariadb") return;  // database-first reads a user's state there
  // Asked again, they need no record: with MariaDB down they are answered all the same.
  SharedServers::mariadb().Kill();
  HasLikedRequest has;
  for (int64_t id = 500000; id < 500000 + kMaxBatch; ++id) has.add_content_ids(id);
  auto liked = proxy().HasLiked(has, AsUser("reader"));
  EXPECT_TRUE(liked.ok()) << liked.status();
  ASSERT_TRUE(SharedServers::mariadb().Start());
  EXPECT_EQ(RedisInteger({"DBSIZE"}), keys_before);
}

// SetLike is retried or duplicated by the framework only when it carries a request id: a copy
// of an id-less like landing after the user's unlike would undo it.
TEST(LikeProtoTest, SetLikeIsIdempotentForTheFrameworkOnlyWithARequestId) {
  SetLikeRequest request;
  request.set_content_id(1);
  request.set_liked(true);
  EXPECT_FALSE(LikeServiceMethods::SetLike.IsIdempotent(request));
  request.set_request_id("r1");
  EXPECT_TRUE(LikeServiceMethods::SetLike.IsIdempotent(request));
}

// The shipped configurations: operator methods need an operator (a signed call, or a user token
// with the role operator), the public reads need nothing and are limited per client address.
class LikeShippedConfigTest : public ::testing::TestWithParam<std::string> {};

// A user token of the shipped config's key for `user`, with `roles`.
CallOptions ShippedUserToken(std::string_view user, std::vector<std::string_view> roles) {
  const int64_t now_s = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  CallOptions options;
  options.attachments[std::string(plugins::kUserTokenAttachment)] =
      plugins::MakeUserToken("users-demo", "change-me-like-demo",
                             {.user = user,
                              .audience = "like",
                              .token_id = plugins::NewUserTokenId(),
                              .issued_unix_s = now_s,
                              .expires_unix_s = now_s + 600,
                              .roles = std::move(roles)});
  return options;
}

TEST_P(LikeShippedConfigTest, OperatorMethodsNeedAnOperatorAndPublicReadsAreLimitedPerPeer) {
  TempDir dir;
  LikeConfig config = ConfigFor("embedded", dir.path());
  InProcessProvider provider;
  provider.Start(config, ShippedFilters(GetParam()));
  LikeServiceProxy& anonymous = provider.proxy();
  ReconcileRequest reconcile;
  reconcile.set_content_id(1);
  reconcile.set_repair(true);
  // Refused by authz, whose rules ask for an operator.
  const Status reconciled = anonymous.Reconcile(reconcile).status();
  EXPECT_EQ(reconciled.code(), StatusCode::PERMISSION_DENIED) << reconciled;
  EXPECT_NE(
      reconciled.message().find(
          "authz: permission denied for ferry.like.LikeService/Reconcile (an anonymous call)"),
      std::string::npos)
      << reconciled;
  EXPECT_EQ(anonymous.RedriveDeadLetters({}).status().code(), StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(anonymous.ListChanges({}).status().code(), StatusCode::PERMISSION_DENIED);
  DeleteUserRequest deletion;
  deletion.set_user_id("someone");
  EXPECT_EQ(anonymous.DeleteUser(deletion).status().code(), StatusCode::PERMISSION_DENIED);
  // A liker is not an operator; an operator's token of the role operator is.
  EXPECT_EQ(anonymous.DeleteUser(deletion, ShippedUserToken("eve", {})).status().code(),
            StatusCode::PERMISSION_DENIED);
  const auto by_role = anonymous.Reconcile(reconcile, ShippedUserToken("ops-ann", {"operator"}));
  EXPECT_TRUE(by_role.ok()) << by_role.status();
  // A liker's own likes need a user token: refused by user_token, saying what is missing.
  SetLikeRequest like;
  like.set_content_id(1);
  like.set_liked(true);
  EXPECT_EQ(anonymous.SetLike(like).status().code(), StatusCode::UNAUTHENTICATED);

  ClientOptions signed_options = testsupport::LoopbackClientOptions(std::chrono::seconds(15));
  signed_options.filters = {
      FilterSpec::FromYaml("auth",
                           "{keys: [{id: like-operators-demo, secret: change-me-like-operators}], "
                           "caller: ops}")};
  signed_options.filters[0].allow_sample_secrets = true;
  auto channel = testsupport::LoopbackChannel(provider.port(), signed_options);
  ASSERT_NE(channel, nullptr);
  LikeServiceProxy operator_proxy(channel);
  auto report = operator_proxy.Reconcile(reconcile);
  EXPECT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(operator_proxy.ListChanges({}).ok());

  // GetCounts needs no token; one client address gets its burst, then is refused. The calls go
  // in waves sent at once, so they outrun the refill however slow the build is.
  GetCountsRequest counts;
  counts.add_content_ids(1);
  int answered = 0;
  Status refused;
  for (int wave = 0; wave < 20 && refused.ok(); ++wave) {
    std::vector<CallFuture<GetCountsResponse>> calls;
    for (int i = 0; i < 200; ++i) calls.push_back(anonymous.GetCountsAsync(counts));
    for (auto& call : calls) {
      auto r = call.get();
      if (r.ok()) {
        ++answered;
      } else if (refused.ok()) {
        refused = r.status();
      }
    }
  }
  EXPECT_EQ(refused.code(), StatusCode::RESOURCE_EXHAUSTED) << refused;
  EXPECT_GE(answered, 400);
}

INSTANTIATE_TEST_SUITE_P(Configs, LikeShippedConfigTest,
                         ::testing::Values("like-server.yaml", "like-server-redis.yaml"),
                         [](const auto& info) {
                           return info.param == "like-server.yaml" ? std::string("Embedded")
                                                                   : std::string("Redis");
                         });

INSTANTIATE_TEST_SUITE_P(Backends, LikeServiceTest,
                         ::testing::Values("embedded", "redis+mariadb", "database-first"),
                         [](const auto& info) {
                           return info.param == "embedded"        ? std::string("Embedded")
                                  : info.param == "redis+mariadb" ? std::string("RedisFirst")
                                                                  : std::string("DatabaseFirst");
                         });

}  // namespace
}  // namespace ferry::like::testing
