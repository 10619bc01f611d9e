#include "seckill_command.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "in_process_provider.h"
#include "seckill_small_sale.h"
#include "service/seckill_app.h"
#include "user_token_server_options.h"

namespace ferry::bench {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// A seckill app on the embedded backend, its SQLite file in a directory of its own that goes
// with it.
struct EmbeddedSeckill {
  explicit EmbeddedSeckill(const std::string& name) : dir("seckill-" + name) {
    config.backend = "embedded";
    config.sqlite_path = dir.File("seckill.db");
    config.worker_id = 1;
    config.reconcile_interval_ms = 0;
    const Status created = seckill::SeckillApp::Create(config, "", &app);
    EXPECT_TRUE(created.ok()) << created;
  }
  ~EmbeddedSeckill() {
    if (app != nullptr) app->Stop();
    app.reset();
  }

  const ScratchDir dir;
  seckill::SeckillConfig config;
  std::unique_ptr<seckill::SeckillApp> app;
};

using SaleRun = CommandRun<SeckillBenchOutcome>;

// A SmallSale, changed by `adjust`, against a provider of `services` that verifies user tokens.
SaleRun RunSale(std::span<Service* const> services,
                const std::function<void(SeckillBenchOptions&)>& adjust = nullptr) {
  return RunAgainstProvider<SeckillBenchOutcome>(
      services, VerifyingUserTokens(),
      [&](const std::string& target, std::ostream& out, std::ostream& err,
          SeckillBenchOutcome* outcome) {
        SeckillBenchOptions options = SmallSale(target);
        if (adjust) adjust(options);
        return RunSeckillBench(options, out, err, outcome);
      });
}

// The embedded backend (SQLite in a temporary file) behind a real seckill provider.
TEST(SeckillCommandTest, EmbeddedSaleSellsTheStockOnceAndPassesEveryCheck) {
  EmbeddedSeckill embedded("bench");
  ASSERT_NE(embedded.app, nullptr);
  const SaleRun run = RunSale(embedded.app->services());
  const SeckillBenchOutcome& outcome = run.outcome;

  EXPECT_EQ(run.exit_code, 0) << run.output();
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
  EXPECT_THAT(run.out, HasSubstr("\nSECKILL settle_ms="));
  EXPECT_THAT(LastLine(run.out), StartsWith("RESULT qps="));
  EXPECT_THAT(LastLine(run.out),
              HasSubstr(" orders=5 stock=5 oversold=0 duplicate_orders=0 lost=0"));
}

// --accepted-out lists each accepted request once, and each is an order of its buyer in the
// provider's database.
TEST(SeckillCommandTest, AcceptedOutListsEveryAcceptedRequestAsItsBuyersOrder) {
  EmbeddedSeckill embedded("accepted");
  ASSERT_NE(embedded.app, nullptr);
  const std::string accepted_out = embedded.dir.File("accepted.txt");
  const SaleRun run = RunSale(embedded.app->services(),
                              [&](SeckillBenchOptions& o) { o.accepted_out = accepted_out; });
  ASSERT_EQ(run.exit_code, 0) << run.output();

  std::ifstream file(accepted_out);
  std::set<std::string> requests;
  std::set<std::string> users;
  int64_t activity = 0;
  std::string request;
  std::string user;
  while (file >> activity >> request >> user) {
    EXPECT_EQ(activity, run.outcome.activity_id);
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

// The part of a test's seckill provider that is always the same: an activity `activity_id` with
// the stock it was created with, preheated to that, without a cache; cancelling is not part of
// a sale.
class FakeSeckill : public seckill::SeckillServiceBase {
 public:
  explicit FakeSeckill(int64_t activity_id) : activity_id_(activity_id) {}

  Status CreateActivity(ServerContext&, const seckill::CreateActivityRequest& request,
                        seckill::CreateActivityResponse* response) override {
    stock_ = request.activity().stock();
    response->set_activity_id(activity_id_);
    return Status::Ok();
  }
  Status Preheat(ServerContext&, const seckill::PreheatRequest&,
                 seckill::PreheatResponse* response) override {
    response->set_cached_stock(stock_);
    return Status::Ok();
  }
  Status GetActivity(ServerContext&, const seckill::ActivityRef&,
                     seckill::GetActivityResponse* response) override {
    response->set_state(seckill::OPEN);
    return Status::Ok();
  }
  Status CancelOrder(ServerContext&, const seckill::CancelOrderRequest&,
                     seckill::CancelOrderResponse*) override {
    return Status(StatusCode::UNIMPLEMENTED, "");
  }

 private:
  const int64_t activity_id_;
  std::atomic<int64_t> stock_{0};
};

// A provider that accepts every purchase: the checks must catch the oversell.
class OversellingSeckill final : public FakeSeckill {
 public:
  OversellingSeckill() : FakeSeckill(7) {}

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
  Status Reconcile(ServerContext&, const seckill::ActivityRef&,
                   seckill::ReconcileResponse* response) override {
    response->set_orders_unpaid(accepted_.load());
    response->set_invariants_hold(true);
    return Status::Ok();
  }

 private:
  std::atomic<int64_t> accepted_{0};
};

TEST(SeckillCommandTest, OversellingProviderFailsTheCheck) {
  OversellingSeckill service;
  Service* services[] = {&service};
  const SaleRun run = RunSale(services, [](SeckillBenchOptions& o) { o.dup_ratio = 0; });

  EXPECT_EQ(run.exit_code, 1);
  EXPECT_FALSE(run.outcome.passed);
  EXPECT_EQ(run.outcome.orders, 50);
  EXPECT_EQ(run.outcome.oversold, 45);
  EXPECT_THAT(run.out, HasSubstr("check: FAIL"));
  EXPECT_THAT(LastLine(run.out), HasSubstr(" orders=50 stock=5 oversold=45 "));
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

class ScriptedSeckill final : public FakeSeckill {
 public:
  explicit ScriptedSeckill(ScriptedSale sale) : FakeSeckill(sale.activity_id), sale_(sale) {}

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
  Status Reconcile(ServerContext&, const seckill::ActivityRef&,
                   seckill::ReconcileResponse* response) override {
    response->set_orders_unpaid(sale_.live);
    response->set_orders_cancelled(sale_.cancelled);
    response->set_invariants_hold(true);
    return Status::Ok();
  }

 private:
  const ScriptedSale sale_;
  std::mutex mu_;
  std::map<std::string, seckill::PurchaseAnswer> answers_;  // by request id
  std::set<std::string> buyers_;                            // users holding an order
  std::map<std::string, int64_t> orders_;                   // request id -> order number
  std::set<std::string> seen_;                              // request ids purchased before
};

// One sale against a ScriptedSeckill, and what its checks must conclude.
struct ScriptedCase {
  std::string name;
  ScriptedSale sale;
  double dup_ratio = 0;
  int exit_code = 0;
  std::function<void(const SeckillBenchOutcome& outcome, const std::string& output)> expect;
};

// gtest names a case by its name, not its bytes.
void PrintTo(const ScriptedCase& c, std::ostream* out) { *out << c.name; }

class ScriptedSaleTest : public ::testing::TestWithParam<ScriptedCase> {};

TEST_P(ScriptedSaleTest, ChecksConcludeWhatTheProviderDid) {
  const ScriptedCase& c = GetParam();
  ScriptedSeckill service(c.sale);
  Service* services[] = {&service};
  const SaleRun run = RunSale(services, [&](SeckillBenchOptions& o) { o.dup_ratio = c.dup_ratio; });

  EXPECT_EQ(run.exit_code, c.exit_code) << run.output();
  c.expect(run.outcome, run.output());
}

INSTANTIATE_TEST_SUITE_P(
    SeckillCommandTest, ScriptedSaleTest,
    ::testing::Values(
        // Reconcile claiming stock-many orders and its invariants holding does not hide the 50
        // orders GetResult gave out.
        ScriptedCase{.name = "OrdersGetResultGaveBeyondWhatReconcileClaimsFailTheCheck",
                     .sale = {.units = 50, .live = 5, .cancelled = 0},
                     .dup_ratio = 0,
                     .exit_code = 1,
                     .expect =
                         [](const SeckillBenchOutcome& outcome, const std::string& output) {
                           EXPECT_FALSE(outcome.passed);
                           EXPECT_EQ(outcome.created_orders, 50);
                           EXPECT_EQ(outcome.oversold, 45);
                           EXPECT_THAT(output,
                                       HasSubstr("Reconcile counts 5 orders, GetResult gave 50"));
                         }},
        // Each of the 5 same-request retries (50 buyers, dup-ratio 0.2: 5 retries, 5 new
        // request ids) gets ENDED while the first purchase under its id got another answer.
        ScriptedCase{.name = "ARetryAnsweredDifferentlyFromTheFirstPurchaseFailsTheCheck",
                     .sale = {.units = 5, .live = 5, .retry_gets_another_answer = true},
                     .dup_ratio = 0.2,
                     .exit_code = 1,
                     .expect =
                         [](const SeckillBenchOutcome& outcome, const std::string& output) {
                           EXPECT_FALSE(outcome.passed);
                           EXPECT_EQ(outcome.answer_mismatches, 5);
                           EXPECT_EQ(outcome.oversold, 0);
                           EXPECT_EQ(outcome.lost, 0);
                           EXPECT_THAT(
                               output,
                               HasSubstr("5 retries got another answer than the first purchase"));
                         }},
        // NOT_STARTED records nothing: the retry of a request first answered so may decide it.
        ScriptedCase{.name = "ARetryOfARequestAnsweredNotStartedMayBeDecided",
                     .sale = {.units = 5, .live = 5, .first_sight_not_started = true},
                     .dup_ratio = 0.2,
                     .exit_code = 0,
                     .expect =
                         [](const SeckillBenchOutcome& outcome, const std::string&) {
                           EXPECT_EQ(outcome.answer_mismatches, 0);
                           EXPECT_EQ(outcome.created_orders, 5);
                         }},
        // Two orders closed by the pay timeout gave their units to two more buyers: 7 orders,
        // 5 live, no oversell.
        ScriptedCase{.name = "CancelledOrdersWhoseUnitsWereSoldAgainAreNoOversell",
                     .sale = {.units = 7, .live = 5, .cancelled = 2},
                     .dup_ratio = 0.2,
                     .exit_code = 0,
                     .expect =
                         [](const SeckillBenchOutcome& outcome, const std::string&) {
                           EXPECT_TRUE(outcome.passed);
                           EXPECT_EQ(outcome.orders, 5);
                           EXPECT_EQ(outcome.cancelled_orders, 2);
                           EXPECT_EQ(outcome.created_orders, 7);
                           EXPECT_EQ(outcome.oversold, 0);
                           EXPECT_EQ(outcome.answer_mismatches, 0);
                         }}),
    [](const ::testing::TestParamInfo<ScriptedCase>& info) { return info.param.name; });

// --verify-db reads the embedded backend's SQLite file itself: 5 live orders, none left.
TEST(SeckillCommandTest, VerifyDbReadsTheEmbeddedDatabaseDirectly) {
  EmbeddedSeckill embedded("verify");
  ASSERT_NE(embedded.app, nullptr);
  const SaleRun run = RunSale(embedded.app->services(), [&](SeckillBenchOptions& o) {
    o.database.kind = "sqlite";
    o.database.sqlite_path = embedded.config.sqlite_path;
  });
  const SeckillBenchOutcome& outcome = run.outcome;

  EXPECT_EQ(run.exit_code, 0) << run.output();
  ASSERT_TRUE(outcome.database_read) << run.out;
  EXPECT_EQ(outcome.database.initial_stock, 5);
  EXPECT_EQ(outcome.database.remaining, 0);
  EXPECT_EQ(outcome.database.unpaid, 5);
  EXPECT_EQ(outcome.database.users_with_two_orders, 0);
  EXPECT_EQ(outcome.database.accepted_without_order, 0);
  EXPECT_THAT(run.out, HasSubstr("database (sqlite): orders=5 "));
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
  const SaleRun run = RunSale(services, [&](SeckillBenchOptions& o) {
    o.database.kind = "sqlite";
    o.database.sqlite_path = embedded.config.sqlite_path;
  });

  EXPECT_EQ(run.exit_code, 1) << run.output();
  ASSERT_TRUE(run.outcome.database_read) << run.out;
  EXPECT_EQ(run.outcome.database.accepted_without_order, 5);
  EXPECT_THAT(run.out, HasSubstr("database: 5 accepted requests have no order"));
  EXPECT_THAT(run.out, HasSubstr("database holds 0 orders, GetResult gave 5"));
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
  const SaleRun run = RunSale(
      services, [](SeckillBenchOptions& o) { o.accepted_out = "/nonexistent-dir/accepted.txt"; });

  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.err, HasSubstr("--accepted-out: cannot open /nonexistent-dir/accepted.txt"));
  EXPECT_THAT(run.out, ::testing::Not(HasSubstr("created and preheated")));
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
