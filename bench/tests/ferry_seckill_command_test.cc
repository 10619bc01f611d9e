#include "seckill_command.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>

#include "ferry/framework/server.h"
#include "service/seckill_app.h"
#include "user_token_server_options.h"

namespace ferry::bench {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string LastLine(const std::string& text) {
  const size_t end = text.find_last_not_of('\n');
  const size_t begin = text.rfind('\n', end);
  return text.substr(begin == std::string::npos ? 0 : begin + 1, end - begin);
}

// An in-process provider on an ephemeral loopback port.
class Provider {
 public:
  explicit Provider(std::span<Service* const> services) : server_(VerifyingUserTokens()) {
    for (Service* service : services) EXPECT_TRUE(server_.AddService(service).ok());
    const Status started = server_.Start();
    EXPECT_TRUE(started.ok()) << started;
  }
  ~Provider() { server_.Stop(); }
  std::string target() const { return "127.0.0.1:" + std::to_string(server_.port()); }

 private:
  Server server_;
};

// A seckill app on the embedded backend, its SQLite file in a directory of its own that goes
// with it.
struct EmbeddedSeckill {
  explicit EmbeddedSeckill(const std::string& name)
      : dir(std::filesystem::path(::testing::TempDir()) /
            ("ferry-seckill-" + name + "-" + std::to_string(getpid()))) {
    std::filesystem::create_directories(dir);
    config.backend = "embedded";
    config.sqlite_path = (dir / "seckill.db").string();
    config.worker_id = 1;
    config.reconcile_interval_ms = 0;
    const Status created = seckill::SeckillApp::Create(config, "", &app);
    EXPECT_TRUE(created.ok()) << created;
  }
  ~EmbeddedSeckill() {
    if (app != nullptr) app->Stop();
    app.reset();
    std::filesystem::remove_all(dir);
  }

  const std::filesystem::path dir;
  seckill::SeckillConfig config;
  std::unique_ptr<seckill::SeckillApp> app;
};

SeckillBenchOptions SmallSale(const std::string& target) {
  SeckillBenchOptions options;
  options.load.target = target;
  options.user_token_key_id = "default";
  options.user_token_secret = kUserTokenSecret;
  options.load.conns = 2;
  options.load.depth = 8;
  options.stock = 5;
  options.buyers = 50;
  options.dup_ratio = 0.2;
  options.duration_limit_s = 30;
  options.settle_timeout_s = 10;
  return options;
}

// The embedded backend (SQLite in a temporary file) behind a real seckill provider.
TEST(SeckillCommandTest, EmbeddedSaleSellsTheStockOnceAndPassesEveryCheck) {
  EmbeddedSeckill embedded("bench");
  ASSERT_NE(embedded.app, nullptr);
  std::ostringstream out;
  std::ostringstream err;
  SeckillBenchOutcome outcome;
  int exit_code = 0;
  {
    Provider provider(embedded.app->services());
    exit_code = RunSeckillBench(SmallSale(provider.target()), out, err, &outcome);
  }

  EXPECT_EQ(exit_code, 0) << out.str() << err.str();
  EXPECT_TRUE(outcome.passed);
  EXPECT_EQ(outcome.purchases, 60u);  // 50 buyers, 10 of them twice
  EXPECT_EQ(outcome.answered, 60u);
  EXPECT_EQ(outcome.errors, 0u);
  EXPECT_EQ(outcome.orders, 5);
  EXPECT_EQ(outcome.expected_orders, 5);
  EXPECT_EQ(outcome.duplicate_orders, 0);
  EXPECT_EQ(outcome.lost, 0);
  EXPECT_TRUE(outcome.invariants_hold);
  EXPECT_GE(outcome.settle_ms, 0);
  ASSERT_EQ(outcome.answers.size(), 7u);
  // ACCEPTED: the 5 units, plus a replay for each same-request retry of a buyer who got one.
  EXPECT_EQ(outcome.answers[0].first, "ACCEPTED");
  EXPECT_GE(outcome.answers[0].second, 5u);
  EXPECT_LE(outcome.answers[0].second, 10u);
  // The rest: sold out, or (a second purchase of a buyer who got a unit) already joined.
  EXPECT_EQ(outcome.answers[0].second + outcome.answers[1].second + outcome.answers[2].second, 60u);
  for (size_t i = 3; i < outcome.answers.size(); ++i) {
    EXPECT_EQ(outcome.answers[i].second, 0u) << outcome.answers[i].first;
  }
  EXPECT_THAT(out.str(), HasSubstr("\nSECKILL settle_ms="));
  EXPECT_THAT(LastLine(out.str()), StartsWith("RESULT qps="));
  EXPECT_THAT(LastLine(out.str()),
              HasSubstr(" orders=5 stock=5 oversold=0 duplicate_orders=0 lost=0"));
}

// --accepted-out lists each accepted request once, and each is an order of its buyer in the
// provider's database.
TEST(SeckillCommandTest, AcceptedOutListsEveryAcceptedRequestAsItsBuyersOrder) {
  EmbeddedSeckill embedded("accepted");
  ASSERT_NE(embedded.app, nullptr);
  SeckillBenchOptions options;
  std::ostringstream out;
  std::ostringstream err;
  SeckillBenchOutcome outcome;
  int exit_code = 0;
  {
    Provider provider(embedded.app->services());
    options = SmallSale(provider.target());
    options.accepted_out = (embedded.dir / "accepted.txt").string();
    exit_code = RunSeckillBench(options, out, err, &outcome);
  }
  ASSERT_EQ(exit_code, 0) << out.str() << err.str();

  std::ifstream file(options.accepted_out);
  std::set<std::string> requests;
  std::set<std::string> users;
  int64_t activity = 0;
  std::string request;
  std::string user;
  while (file >> activity >> request >> user) {
    EXPECT_EQ(activity, outcome.activity_id);
    EXPECT_TRUE(requests.insert(request).second) << request << " listed twice";
    users.insert(user);
    seckill::RequestRecord record;
    ASSERT_TRUE(embedded.app->core()
                    .deps.store->GetRequest({.user_id = user, .request_id = request}, &record)
                    .ok())
        << request;
    ASSERT_TRUE(record.created) << request << ": " << record.reason;
    seckill::OrderRecord order;
    ASSERT_TRUE(embedded.app->core().deps.store->GetOrder(record.order_no, &order).ok()) << request;
    EXPECT_EQ(order.user_id, user);
  }
  EXPECT_EQ(requests.size(), 5u);  // one per unit: nobody got two
  EXPECT_EQ(users.size(), 5u);
}

// A provider that accepts every purchase: the checks must catch the oversell.
class OversellingSeckill final : public seckill::SeckillServiceBase {
 public:
  Status CreateActivity(ServerContext&, const seckill::CreateActivityRequest& request,
                        seckill::CreateActivityResponse* response) override {
    stock_ = request.activity().stock();
    response->set_activity_id(7);
    return Status::Ok();
  }
  Status Preheat(ServerContext&, const seckill::ActivityRef&,
                 seckill::PreheatResponse* response) override {
    response->set_cached_stock(stock_);
    return Status::Ok();
  }
  Status GetActivity(ServerContext&, const seckill::ActivityRef&,
                     seckill::GetActivityResponse* response) override {
    response->set_cache_stock(-1);
    return Status::Ok();
  }
  Status Purchase(ServerContext&, const seckill::PurchaseRequest&,
                  seckill::PurchaseResponse* response) override {
    accepted_.fetch_add(1);
    response->set_answer(seckill::ACCEPTED);
    return Status::Ok();
  }
  Status GetResult(ServerContext&, const seckill::GetResultRequest&,
                   seckill::GetResultResponse* response) override {
    response->set_state(seckill::CREATED);
    return Status::Ok();
  }
  Status Pay(ServerContext&, const seckill::PayRequest&, seckill::PayResponse*) override {
    return Status(StatusCode::UNIMPLEMENTED, "");
  }
  Status CancelOrder(ServerContext&, const seckill::CancelOrderRequest&,
                     seckill::CancelOrderResponse*) override {
    return Status(StatusCode::UNIMPLEMENTED, "");
  }
  Status Reconcile(ServerContext&, const seckill::ActivityRef&,
                   seckill::ReconcileResponse* response) override {
    response->set_orders_unpaid(accepted_.load());
    response->set_invariants_hold(true);
    return Status::Ok();
  }

 private:
  std::atomic<int64_t> stock_{0};
  std::atomic<int64_t> accepted_{0};
};

TEST(SeckillCommandTest, OversellingProviderFailsTheCheck) {
  OversellingSeckill service;
  Service* services[] = {&service};
  Provider provider(services);
  SeckillBenchOptions options = SmallSale(provider.target());
  options.dup_ratio = 0;
  std::ostringstream out;
  std::ostringstream err;
  SeckillBenchOutcome outcome;

  const int exit_code = RunSeckillBench(options, out, err, &outcome);

  EXPECT_EQ(exit_code, 1);
  EXPECT_FALSE(outcome.passed);
  EXPECT_EQ(outcome.orders, 50);
  EXPECT_EQ(outcome.oversold, 45);
  EXPECT_THAT(out.str(), HasSubstr("check: FAIL"));
  EXPECT_THAT(LastLine(out.str()), HasSubstr(" orders=50 stock=5 oversold=45 "));
}

// A provider consistent in everything but what a test makes it get wrong: it accepts the first
// `units` buyers (remembering each request id's answer, refusing a buyer's second request id),
// GetResult gives every accepted request an order number of its own, and Reconcile reports
// `live` unpaid and `cancelled` cancelled orders with its invariants holding.
struct ScriptedSale {
  int64_t units = 5;
  int64_t live = 5;
  int64_t cancelled = 0;
  bool retry_gets_another_answer = false;  // a request id seen again answers ENDED
  bool first_sight_not_started = false;    // a request id's first purchase: NOT_STARTED, unrecorded
  int64_t activity_id = 8;                 // what CreateActivity answers
};

class ScriptedSeckill final : public seckill::SeckillServiceBase {
 public:
  explicit ScriptedSeckill(ScriptedSale sale) : sale_(sale) {}

  Status CreateActivity(ServerContext&, const seckill::CreateActivityRequest& request,
                        seckill::CreateActivityResponse* response) override {
    stock_ = request.activity().stock();
    response->set_activity_id(sale_.activity_id);
    return Status::Ok();
  }
  Status Preheat(ServerContext&, const seckill::ActivityRef&,
                 seckill::PreheatResponse* response) override {
    response->set_cached_stock(stock_);
    return Status::Ok();
  }
  Status GetActivity(ServerContext&, const seckill::ActivityRef&,
                     seckill::GetActivityResponse* response) override {
    response->set_cache_stock(-1);
    return Status::Ok();
  }
  Status Purchase(ServerContext&, const seckill::PurchaseRequest& request,
                  seckill::PurchaseResponse* response) override {
    std::lock_guard lock(mu_);
    const auto known = answers_.find(request.request_id());
    if (known != answers_.end()) {
      response->set_answer(sale_.retry_gets_another_answer ? seckill::ENDED : known->second);
      return Status::Ok();
    }
    if (sale_.first_sight_not_started && seen_.insert(request.request_id()).second) {
      response->set_answer(seckill::NOT_STARTED);
      return Status::Ok();
    }
    seckill::PurchaseAnswer answer = seckill::SOLD_OUT;
    if (buyers_.contains(request.user_id())) {
      answer = seckill::ALREADY_JOINED;
    } else if (static_cast<int64_t>(orders_.size()) < sale_.units) {
      answer = seckill::ACCEPTED;
      buyers_.insert(request.user_id());
      orders_.emplace(request.request_id(), 1000 + static_cast<int64_t>(orders_.size()));
    }
    answers_.emplace(request.request_id(), answer);
    response->set_answer(answer);
    return Status::Ok();
  }
  Status GetResult(ServerContext&, const seckill::GetResultRequest& request,
                   seckill::GetResultResponse* response) override {
    std::lock_guard lock(mu_);
    const auto order = orders_.find(request.request_id());
    if (order == orders_.end()) {
      response->set_state(seckill::FAILED);
    } else {
      response->set_state(seckill::CREATED);
      response->set_order_no(order->second);
    }
    return Status::Ok();
  }
  Status Pay(ServerContext&, const seckill::PayRequest&, seckill::PayResponse*) override {
    return Status(StatusCode::UNIMPLEMENTED, "");
  }
  Status CancelOrder(ServerContext&, const seckill::CancelOrderRequest&,
                     seckill::CancelOrderResponse*) override {
    return Status(StatusCode::UNIMPLEMENTED, "");
  }
  Status Reconcile(ServerContext&, const seckill::ActivityRef&,
                   seckill::ReconcileResponse* response) override {
    response->set_orders_unpaid(sale_.live);
    response->set_orders_cancelled(sale_.cancelled);
    response->set_invariants_hold(true);
    return Status::Ok();
  }

 private:
  const ScriptedSale sale_;
  std::atomic<int64_t> stock_{0};
  std::mutex mu_;
  std::map<std::string, seckill::PurchaseAnswer> answers_;  // by request id
  std::set<std::string> buyers_;                            // users holding an order
  std::map<std::string, int64_t> orders_;                   // request id -> order number
  std::set<std::string> seen_;                              // request ids purchased before
};

SeckillBenchOutcome RunScripted(ScriptedSale sale, double dup_ratio, int* exit_code,
                                std::string* output) {
  ScriptedSeckill service(sale);
  Service* services[] = {&service};
  Provider provider(services);
  SeckillBenchOptions options = SmallSale(provider.target());
  options.dup_ratio = dup_ratio;
  std::ostringstream out;
  std::ostringstream err;
  SeckillBenchOutcome outcome;
  *exit_code = RunSeckillBench(options, out, err, &outcome);
  *output = out.str() + err.str();
  return outcome;
}

// Reconcile claiming stock-many orders and its invariants holding does not hide the 50 orders
// GetResult gave out.
TEST(SeckillCommandTest, OrdersGetResultGaveBeyondWhatReconcileClaimsFailTheCheck) {
  int exit_code = 0;
  std::string output;
  const SeckillBenchOutcome outcome =
      RunScripted({.units = 50, .live = 5, .cancelled = 0}, 0, &exit_code, &output);

  EXPECT_EQ(exit_code, 1) << output;
  EXPECT_FALSE(outcome.passed);
  EXPECT_EQ(outcome.created_orders, 50);
  EXPECT_EQ(outcome.oversold, 45);
  EXPECT_THAT(output, HasSubstr("Reconcile counts 5 orders, GetResult gave 50"));
}

// Each of the 5 same-request retries (50 buyers, dup-ratio 0.2: 5 retries, 5 new request ids)
// gets ENDED while the first purchase under its id got another answer.
TEST(SeckillCommandTest, ARetryAnsweredDifferentlyFromTheFirstPurchaseFailsTheCheck) {
  int exit_code = 0;
  std::string output;
  const SeckillBenchOutcome outcome = RunScripted(
      {.units = 5, .live = 5, .retry_gets_another_answer = true}, 0.2, &exit_code, &output);

  EXPECT_EQ(exit_code, 1) << output;
  EXPECT_FALSE(outcome.passed);
  EXPECT_EQ(outcome.answer_mismatches, 5);
  EXPECT_EQ(outcome.oversold, 0);
  EXPECT_EQ(outcome.lost, 0);
  EXPECT_THAT(output, HasSubstr("5 retries got another answer than the first purchase"));
}

// NOT_STARTED records nothing: the retry of a request first answered so may decide it.
TEST(SeckillCommandTest, ARetryOfARequestAnsweredNotStartedMayBeDecided) {
  int exit_code = 0;
  std::string output;
  const SeckillBenchOutcome outcome = RunScripted(
      {.units = 5, .live = 5, .first_sight_not_started = true}, 0.2, &exit_code, &output);

  EXPECT_EQ(exit_code, 0) << output;
  EXPECT_EQ(outcome.answer_mismatches, 0);
  EXPECT_EQ(outcome.created_orders, 5);
}

// Two orders closed by the pay timeout gave their units to two more buyers: 7 orders, 5 live,
// no oversell.
TEST(SeckillCommandTest, CancelledOrdersWhoseUnitsWereSoldAgainAreNoOversell) {
  int exit_code = 0;
  std::string output;
  const SeckillBenchOutcome outcome =
      RunScripted({.units = 7, .live = 5, .cancelled = 2}, 0.2, &exit_code, &output);

  EXPECT_EQ(exit_code, 0) << output;
  EXPECT_TRUE(outcome.passed);
  EXPECT_EQ(outcome.orders, 5);
  EXPECT_EQ(outcome.cancelled_orders, 2);
  EXPECT_EQ(outcome.created_orders, 7);
  EXPECT_EQ(outcome.oversold, 0);
  EXPECT_EQ(outcome.answer_mismatches, 0);
}

// --verify-db reads the embedded backend's SQLite file itself: 5 live orders, none left.
TEST(SeckillCommandTest, VerifyDbReadsTheEmbeddedDatabaseDirectly) {
  EmbeddedSeckill embedded("verify");
  ASSERT_NE(embedded.app, nullptr);
  std::ostringstream out;
  std::ostringstream err;
  SeckillBenchOutcome outcome;
  int exit_code = 0;
  {
    Provider provider(embedded.app->services());
    SeckillBenchOptions options = SmallSale(provider.target());
    options.database.kind = "sqlite";
    options.database.sqlite_path = embedded.config.sqlite_path;
    exit_code = RunSeckillBench(options, out, err, &outcome);
  }

  EXPECT_EQ(exit_code, 0) << out.str() << err.str();
  ASSERT_TRUE(outcome.database_read) << out.str();
  EXPECT_EQ(outcome.database.initial_stock, 5);
  EXPECT_EQ(outcome.database.remaining, 0);
  EXPECT_EQ(outcome.database.unpaid, 5);
  EXPECT_EQ(outcome.database.users_with_two_orders, 0);
  EXPECT_EQ(outcome.database.accepted_without_order, 0);
  EXPECT_THAT(out.str(), HasSubstr("database (sqlite): orders=5 "));
}

// A provider whose every answer agrees with itself, over a database (a real SQLite order store)
// that holds its activity but none of the orders it claims: only reading the database shows it.
TEST(SeckillCommandTest, VerifyDbFindsAcceptedRequestsWithoutAnOrderInTheDatabase) {
  EmbeddedSeckill embedded("verify-lie");
  ASSERT_NE(embedded.app, nullptr);
  seckill::ActivityRecord activity;
  activity.sku_id = 1;
  activity.name = "claimed";
  activity.initial_stock = 5;
  activity.start_time_ms = 0;
  activity.end_time_ms = 1;
  activity.price_cents = 100;
  activity.pay_timeout_s = 60;
  ASSERT_TRUE(embedded.app->core().deps.store->CreateActivity(&activity).ok());
  embedded.app->Stop();
  embedded.app.reset();

  ScriptedSeckill service({.units = 5, .live = 5, .activity_id = activity.activity_id});
  Service* services[] = {&service};
  Provider provider(services);
  SeckillBenchOptions options = SmallSale(provider.target());
  options.database.kind = "sqlite";
  options.database.sqlite_path = embedded.config.sqlite_path;
  std::ostringstream out;
  std::ostringstream err;
  SeckillBenchOutcome outcome;
  const int exit_code = RunSeckillBench(options, out, err, &outcome);

  EXPECT_EQ(exit_code, 1) << out.str() << err.str();
  ASSERT_TRUE(outcome.database_read) << out.str();
  EXPECT_EQ(outcome.database.accepted_without_order, 5);
  EXPECT_THAT(out.str(), HasSubstr("database: 5 accepted requests have no order"));
  EXPECT_THAT(out.str(), HasSubstr("database holds 0 orders, GetResult gave 5"));
}

TEST(SeckillCommandTest, VerifyDbFlagsAreChecked) {
  const char* bad_kind[] = {"seckill",  "--target", "127.0.0.1:1", "--stock", "1",
                            "--buyers", "1",        "--verify-db", "postgres"};
  EXPECT_EQ(kSeckillCommand.run(9, bad_kind), 2);
  const char* no_path[] = {"seckill",  "--target", "127.0.0.1:1", "--stock", "1",
                           "--buyers", "1",        "--verify-db", "sqlite"};
  EXPECT_EQ(kSeckillCommand.run(9, no_path), 2);
}

TEST(SeckillCommandTest, AnUnwritableAcceptedOutIsRefusedBeforeTheSale) {
  OversellingSeckill service;
  Service* services[] = {&service};
  Provider provider(services);
  SeckillBenchOptions options = SmallSale(provider.target());
  options.accepted_out = "/nonexistent-dir/accepted.txt";
  std::ostringstream out;
  std::ostringstream err;

  EXPECT_EQ(RunSeckillBench(options, out, err), 1);
  EXPECT_THAT(err.str(), HasSubstr("--accepted-out: cannot open /nonexistent-dir/accepted.txt"));
  EXPECT_THAT(out.str(), ::testing::Not(HasSubstr("created and preheated")));
}

TEST(SeckillCommandTest, FlagsNameWhatIsMissing) {
  const char* no_stock[] = {"seckill", "--target", "127.0.0.1:1", "--buyers", "10"};
  EXPECT_EQ(kSeckillCommand.run(5, no_stock), 2);
  const char* both[] = {"seckill", "--target", "127.0.0.1:1", "--registry", "static://h:1",
                        "--stock", "1",        "--buyers",    "1"};
  EXPECT_EQ(kSeckillCommand.run(9, both), 2);
  const char* bad_ratio[] = {"seckill",  "--target", "127.0.0.1:1", "--stock", "1",
                             "--buyers", "1",        "--dup-ratio", "2"};
  EXPECT_EQ(kSeckillCommand.run(9, bad_ratio), 2);
}

}  // namespace
}  // namespace ferry::bench
