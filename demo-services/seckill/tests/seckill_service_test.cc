// The seckill provider end to end over RPC: SeckillApp (handlers, order writer, order closer)
// behind an in-process ferry::Server, called through the generated SeckillServiceProxy, over
// both backends: embedded (SQLite in a temporary directory) and redis+mariadb (a real Redis and
// a real MariaDB, one of each per test process). Documented statuses for bad input, preheat
// idempotence, the sale window, replay by request id, 10 units among 5,000 concurrent buyers
// with duplicates, pay racing timeout and cancel, and a cancelled unit coming back.

#include <gtest/gtest.h>

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "ferry/plugins/user_token.h"
#include "seckill_test_support.h"
#include "service/seckill_service.h"
#include "storage/order_database.h"
#include "storage/sql_order_store.h"

namespace ferry::seckill {
namespace {

using namespace std::chrono_literals;
using namespace ferry::seckill::testing;

enum class Backend { kEmbedded, kRedisMariaDb };

std::string BackendName(const ::testing::TestParamInfo<Backend>& info) {
  return info.param == Backend::kEmbedded ? "embedded" : "redis_mariadb";
}

class SeckillServiceTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (GetParam() == Backend::kEmbedded) {
      config_ = EmbeddedConfig(dir_.path());
    } else {
      ASSERT_NO_FATAL_FAILURE(SharedServers::Start());
      ASSERT_TRUE(SharedServers::FlushRedis());
      config_ = RedisMariaDbConfig(FreshDatabaseName("service"));
    }
  }
  void TearDown() override { provider_.Stop(); }

  void StartProvider() { ASSERT_NO_FATAL_FAILURE(provider_.Start(config_)); }
  SeckillServiceProxy& proxy() { return provider_.proxy(); }
  OrderStore& store() { return *provider_.app().core().deps.store; }
  bool cached() const { return GetParam() == Backend::kRedisMariaDb; }

  PurchaseAnswer Buy(int64_t activity_id, const std::string& user, const std::string& request,
                     int64_t sku_id = 77) {
    auto r = proxy().Purchase(Purchase(activity_id, sku_id, user, request));
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? r->answer() : PURCHASE_ANSWER_UNSPECIFIED;
  }

  static ActivityRef Ref(int64_t id) {
    ActivityRef ref;
    ref.set_activity_id(id);
    return ref;
  }

  OrderState StateOf(int64_t order_no) {
    OrderRecord order;
    Status s = store().GetOrder(order_no, &order);
    EXPECT_TRUE(s.ok()) << s;
    return order.state;
  }

  TempDir dir_;
  SeckillConfig config_;
  InProcessProvider provider_;
};

// --- bad input ------------------------------------------------------------------------------

TEST_P(SeckillServiceTest, BadActivitiesAreRefusedNamingTheField) {
  ASSERT_NO_FATAL_FAILURE(StartProvider());
  struct Case {
    const char* what;
    std::function<void(Activity*)> spoil;
    const char* field;
  };
  const std::vector<Case> cases = {
      {"zero stock", [](Activity* a) { a->set_stock(0); }, "stock"},
      {"negative stock", [](Activity* a) { a->set_stock(-5); }, "stock"},
      {"end before start", [](Activity* a) { a->set_end_time_ms(a->start_time_ms() - 1000); },
       "end_time_ms"},
      {"end equal to start", [](Activity* a) { a->set_end_time_ms(a->start_time_ms()); },
       "end_time_ms"},
      {"no sku", [](Activity* a) { a->set_sku_id(0); }, "sku_id"},
      {"empty name", [](Activity* a) { a->set_name(""); }, "name"},
      {"negative price", [](Activity* a) { a->set_price_cents(-1); }, "price_cents"},
      {"no pay timeout", [](Activity* a) { a->set_pay_timeout_s(0); }, "pay_timeout_s"},
  };
  for (const Case& c : cases) {
    CreateActivityRequest request = ActivityRequest({});
    c.spoil(request.mutable_activity());
    auto r = proxy().CreateActivity(request);
    ASSERT_FALSE(r.ok()) << c.what;
    EXPECT_EQ(r.status().code(), StatusCode::INVALID_ARGUMENT) << c.what << ": " << r.status();
    EXPECT_NE(r.status().message().find(c.field), std::string::npos)
        << c.what << ": " << r.status();
  }
}

TEST_P(SeckillServiceTest, UnknownActivityAndBadRequestsGetTheDocumentedStatuses) {
  ASSERT_NO_FATAL_FAILURE(StartProvider());
  const int64_t id = CreateActivity(proxy(), {});
  ASSERT_GT(id, 0);
  const int64_t unknown = id + 1000;

  auto activity = proxy().GetActivity(Ref(unknown));
  EXPECT_EQ(activity.status().code(), StatusCode::NOT_FOUND) << activity.status();
  EXPECT_FALSE(activity.status().message().empty());
  auto preheat = proxy().Preheat(Ref(unknown));
  EXPECT_EQ(preheat.status().code(), StatusCode::NOT_FOUND) << preheat.status();
  auto reconcile = proxy().Reconcile(Ref(unknown));
  EXPECT_EQ(reconcile.status().code(), StatusCode::NOT_FOUND) << reconcile.status();

  // Purchase of an unknown activity is an answer, not an error.
  auto missing = proxy().Purchase(Purchase(unknown, 77, "u", "r-unknown"));
  ASSERT_TRUE(missing.ok()) << missing.status();
  EXPECT_EQ(missing->answer(), NOT_FOUND);
  EXPECT_FALSE(missing->message().empty());
  // So is a sku the activity does not sell.
  EXPECT_EQ(Buy(id, "u", "r-wrong-sku", 78), NOT_FOUND);

  struct Case {
    PurchaseRequest request;
    const char* field;
  };
  const std::vector<Case> bad = {
      {Purchase(id, 77, "u", ""), "request_id"},
      {Purchase(id, 77, "u", std::string(200, 'r')), "request_id"},
      {Purchase(0, 77, "u", "r-3"), "activity_id"},
      {Purchase(-4, 77, "u", "r-4"), "activity_id"},
      {Purchase(id, 0, "u", "r-5"), "sku_id"},
  };
  for (const Case& c : bad) {
    auto r = proxy().Purchase(c.request);
    ASSERT_FALSE(r.ok()) << c.field;
    EXPECT_EQ(r.status().code(), StatusCode::INVALID_ARGUMENT) << r.status();
    EXPECT_NE(r.status().message().find(c.field), std::string::npos) << r.status();
  }

  GetResultRequest no_id;
  auto result = proxy().GetResult(no_id, AsUser("u"));
  EXPECT_EQ(result.status().code(), StatusCode::INVALID_ARGUMENT) << result.status();
  EXPECT_NE(result.status().message().find("request_id"), std::string::npos);
  GetResultRequest never;
  never.set_request_id("never-sent");
  never.set_activity_id(id);
  never.set_sku_id(77);
  result = proxy().GetResult(never, AsUser("u"));
  EXPECT_EQ(result.status().code(), StatusCode::NOT_FOUND) << result.status();

  PayRequest pay;
  pay.set_order_no(0);
  pay.set_channel("alipay");
  pay.set_channel_txn_id("t");
  auto paid = proxy().Pay(pay, AsUser("u"));
  EXPECT_EQ(paid.status().code(), StatusCode::INVALID_ARGUMENT) << paid.status();
  EXPECT_NE(paid.status().message().find("order_no"), std::string::npos);
  pay.set_order_no(424242);
  pay.set_channel("");
  paid = proxy().Pay(pay, AsUser("u"));
  EXPECT_EQ(paid.status().code(), StatusCode::INVALID_ARGUMENT) << paid.status();
  EXPECT_NE(paid.status().message().find("channel"), std::string::npos);
  pay.set_channel("alipay");
  pay.set_channel_txn_id("");
  paid = proxy().Pay(pay, AsUser("u"));
  EXPECT_EQ(paid.status().code(), StatusCode::INVALID_ARGUMENT) << paid.status();
  EXPECT_NE(paid.status().message().find("channel_txn_id"), std::string::npos);
  pay.set_channel_txn_id("t-unknown");
  paid = proxy().Pay(pay, AsUser("u"));
  EXPECT_EQ(paid.status().code(), StatusCode::NOT_FOUND) << paid.status();

  CancelOrderRequest cancel;
  cancel.set_order_no(0);
  auto cancelled = proxy().CancelOrder(cancel, AsUser("u"));
  EXPECT_EQ(cancelled.status().code(), StatusCode::INVALID_ARGUMENT) << cancelled.status();
  cancel.set_order_no(424242);
  cancelled = proxy().CancelOrder(cancel, AsUser("u"));
  EXPECT_EQ(cancelled.status().code(), StatusCode::NOT_FOUND) << cancelled.status();
}

// --- preheat and the window ----------------------------------------------------------------

TEST_P(SeckillServiceTest, PreheatTwiceLeavesTheStockUnchanged) {
  ASSERT_NO_FATAL_FAILURE(StartProvider());
  const int64_t id = CreateActivity(proxy(), {.stock = 5}, /*preheat=*/false);
  ASSERT_GT(id, 0);

  auto before = proxy().GetActivity(Ref(id));
  ASSERT_TRUE(before.ok()) << before.status();
  EXPECT_EQ(before->state(), CLOSED);
  EXPECT_EQ(before->database_stock(), 5);
  EXPECT_EQ(before->cache_stock(), -1);
  EXPECT_EQ(before->activity().stock(), 5);
  EXPECT_EQ(before->activity().activity_id(), id);
  // Not open yet.
  EXPECT_EQ(Buy(id, "early", "r-early"), NOT_STARTED);

  auto first = proxy().Preheat(Ref(id));
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_FALSE(first->already_open());
  EXPECT_EQ(first->cached_stock(), 5);
  auto second = proxy().Preheat(Ref(id));
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_TRUE(second->already_open());
  EXPECT_EQ(second->cached_stock(), 5);

  auto open = proxy().GetActivity(Ref(id));
  ASSERT_TRUE(open.ok()) << open.status();
  EXPECT_EQ(open->state(), OPEN);
  EXPECT_EQ(open->database_stock(), 5);
  EXPECT_EQ(open->cache_stock(), cached() ? 5 : -1);

  // A purchase, then another preheat: the stock is what is left, not reloaded.
  ASSERT_EQ(Buy(id, "buyer", "r-buyer"), ACCEPTED);
  ASSERT_GT(WaitCreated(proxy(), id, 77, "r-buyer"), 0);
  auto third = proxy().Preheat(Ref(id));
  ASSERT_TRUE(third.ok()) << third.status();
  EXPECT_TRUE(third->already_open());
  EXPECT_EQ(third->cached_stock(), 4);
  auto after = proxy().GetActivity(Ref(id));
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(after->database_stock(), 4);
  EXPECT_EQ(after->cache_stock(), cached() ? 4 : -1);

  const ReconcileResponse report = Settle(proxy(), id);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.orders_unpaid(), 1);
  EXPECT_EQ(report.database_stock(), 4);
  EXPECT_EQ(report.cache_stock(), cached() ? 4 : -1);
}

TEST_P(SeckillServiceTest, PurchasesOutsideTheWindowAreRefused) {
  ASSERT_NO_FATAL_FAILURE(StartProvider());
  const int64_t future = CreateActivity(
      proxy(), {.stock = 3, .start_offset_ms = 3'600'000, .end_offset_ms = 7'200'000});
  const int64_t ended =
      CreateActivity(proxy(), {.stock = 3, .start_offset_ms = -7'200'000, .end_offset_ms = -1000});
  ASSERT_GT(future, 0);
  ASSERT_GT(ended, 0);
  EXPECT_EQ(Buy(future, "w1", "w1-a"), NOT_STARTED);
  EXPECT_EQ(Buy(ended, "w1", "w1-b"), ENDED);
  EXPECT_EQ(Buy(ended, "w1", "w1-b"), ENDED);
  EXPECT_EQ(Buy(future, "w1", "w1-c", 99), NOT_FOUND);

  // Nothing was taken.
  for (int64_t id : {future, ended}) {
    auto a = proxy().GetActivity(Ref(id));
    ASSERT_TRUE(a.ok()) << a.status();
    EXPECT_EQ(a->database_stock(), 3);
    EXPECT_EQ(a->cache_stock(), cached() ? 3 : -1);
  }
}

TEST_P(SeckillServiceTest, TheSameRequestIdAlwaysGetsTheSameAnswer) {
  ASSERT_NO_FATAL_FAILURE(StartProvider());
  const int64_t id = CreateActivity(proxy(), {.stock = 2});
  ASSERT_GT(id, 0);
  ASSERT_EQ(Buy(id, "amy", "amy-1"), ACCEPTED);
  EXPECT_EQ(Buy(id, "amy", "amy-1"), ACCEPTED);
  EXPECT_EQ(Buy(id, "amy", "amy-2"), ALREADY_JOINED);
  EXPECT_EQ(Buy(id, "amy", "amy-2"), ALREADY_JOINED);
  ASSERT_EQ(Buy(id, "ben", "ben-1"), ACCEPTED);
  EXPECT_EQ(Buy(id, "cat", "cat-1"), SOLD_OUT);
  // After the sale sold out, and after the orders exist, every request keeps its answer.
  const int64_t amy = WaitCreated(proxy(), id, 77, "amy-1");
  const int64_t ben = WaitCreated(proxy(), id, 77, "ben-1");
  EXPECT_NE(amy, ben);
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(Buy(id, "amy", "amy-1"), ACCEPTED);
    EXPECT_EQ(Buy(id, "amy", "amy-2"), ALREADY_JOINED);
    EXPECT_EQ(Buy(id, "ben", "ben-1"), ACCEPTED);
    EXPECT_EQ(Buy(id, "cat", "cat-1"), SOLD_OUT);
    EXPECT_EQ(WaitCreated(proxy(), id, 77, "amy-1"), amy);
  }
  GetResultRequest sold_out;
  sold_out.set_request_id("cat-1");
  sold_out.set_activity_id(id);
  sold_out.set_sku_id(77);
  sold_out.set_user_id("cat");  // with the cache, a sold-out answer is recorded there, per user
  auto result = proxy().GetResult(sold_out);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->state(), FAILED);
  EXPECT_EQ(result->reason(), "sold_out");

  const ReconcileResponse report = Settle(proxy(), id);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.orders_unpaid(), 2);
  EXPECT_EQ(report.database_stock(), 0);
}

// --- request ids are scoped ----------------------------------------------------------------

// The idempotency key is (user, activity, sku, request id): the same id from another buyer, or
// in another activity, is a purchase of its own, never a replay of someone else's order.
// "Bob" and "bob" are two users on both backends.
TEST_P(SeckillServiceTest, ARequestIdBelongsToItsBuyerAndItsActivity) {
  ASSERT_NO_FATAL_FAILURE(StartProvider());
  const int64_t a = CreateActivity(proxy(), {.stock = 1});
  const int64_t b = CreateActivity(proxy(), {.stock = 1});
  ASSERT_GT(a, 0);
  ASSERT_GT(b, 0);
  ASSERT_EQ(Buy(a, "Bob", "r-1"), ACCEPTED);
  EXPECT_EQ(Buy(a, "bob", "r-1"), SOLD_OUT);  // a's only unit is Bob's
  EXPECT_EQ(Buy(b, "Bob", "r-1"), ACCEPTED);  // b's unit, taken by this purchase
  EXPECT_EQ(Buy(a, "bob", "r-1"), SOLD_OUT);

  auto result_of = [&](int64_t activity, const std::string& user) {
    GetResultRequest request;
    request.set_request_id("r-1");
    request.set_activity_id(activity);
    request.set_sku_id(77);
    request.set_user_id(user);
    return proxy().GetResult(request);
  };
  auto wait_created = [&](int64_t activity, const std::string& user) {
    int64_t order_no = 0;
    EXPECT_TRUE(Eventually([&] {
      auto r = result_of(activity, user);
      order_no = r.ok() && r->state() == CREATED ? r->order_no() : 0;
      return order_no > 0;
    })) << activity
        << " " << user;
    return order_no;
  };
  const int64_t in_a = wait_created(a, "Bob");
  const int64_t in_b = wait_created(b, "Bob");
  EXPECT_NE(in_a, in_b);
  for (const auto& [activity, order_no] : {std::pair{a, in_a}, std::pair{b, in_b}}) {
    OrderRecord order;
    ASSERT_TRUE(store().GetOrder(order_no, &order).ok());
    EXPECT_EQ(order.user_id, "Bob");
    EXPECT_EQ(order.activity_id, activity);
  }
  auto bob = result_of(a, "bob");
  ASSERT_TRUE(bob.ok()) << bob.status();
  EXPECT_EQ(bob->state(), FAILED);
  EXPECT_EQ(bob->reason(), "sold_out");
  // Without the activity the id names two of Bob's purchases: refused rather than answered
  // with one.
  GetResultRequest unscoped;
  unscoped.set_request_id("r-1");
  auto ambiguous = proxy().GetResult(unscoped, AsUser("Bob"));
  EXPECT_EQ(ambiguous.status().code(), StatusCode::INVALID_ARGUMENT) << ambiguous.status();

  for (const int64_t activity : {a, b}) {
    const ReconcileResponse report = Settle(proxy(), activity);
    EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
    EXPECT_EQ(report.database_stock(), 0);
    EXPECT_EQ(report.orders_unpaid(), 1);
  }
}

// --- a recorded decision wins over the sold-out flag ----------------------------------------

// A client's first attempt times out (Redis stalled) but does take the last unit; its retry
// goes to another provider whose sold-out flag is up. The retry hears ACCEPTED, as the first
// attempt was decided, not the flag's SOLD_OUT.
TEST_P(SeckillServiceTest, ARetryOfAnAttemptThatTookTheLastUnitIsAcceptedByAnotherProvider) {
  config_.sold_out_ttl_ms = 600'000;  // the flag stays up for the whole test
  ASSERT_NO_FATAL_FAILURE(StartProvider());
  InProcessProvider other;
  ASSERT_NO_FATAL_FAILURE(other.Start(config_));
  const int64_t id = CreateActivity(proxy(), {.stock = 1});
  ASSERT_GT(id, 0);

  auto impatient = NewProxy(provider_.port(), 300ms);
  ASSERT_NE(impatient, nullptr);
  const pid_t redis = cached() ? SharedServers::redis().pid() : -1;
  if (cached()) {
    ASSERT_EQ(::kill(redis, SIGSTOP), 0);
  }
  auto first = impatient->Purchase(Purchase(id, 77, "slow", "slow-1"));
  if (cached()) {
    ASSERT_EQ(::kill(redis, SIGCONT), 0);
    EXPECT_EQ(first.status().code(), StatusCode::DEADLINE_EXCEEDED) << first.status();
  } else {
    ASSERT_TRUE(first.ok()) << first.status();
    EXPECT_EQ(first->answer(), ACCEPTED);
  }
  // The first attempt took the unit after its client had given up.
  GetResultRequest lookup;
  lookup.set_request_id("slow-1");
  lookup.set_activity_id(id);
  lookup.set_sku_id(77);
  lookup.set_user_id("slow");
  ASSERT_TRUE(Eventually([&] {
    auto r = other.proxy().GetResult(lookup);
    return r.ok() && (r->state() == PENDING || r->state() == CREATED);
  }));

  auto sold_out = other.proxy().Purchase(Purchase(id, 77, "late", "late-1"));
  ASSERT_TRUE(sold_out.ok()) << sold_out.status();
  ASSERT_EQ(sold_out->answer(), SOLD_OUT);  // raises the other provider's flag
  auto retry = other.proxy().Purchase(Purchase(id, 77, "slow", "slow-1"));
  ASSERT_TRUE(retry.ok()) << retry.status();
  EXPECT_EQ(retry->answer(), ACCEPTED) << PurchaseAnswer_Name(retry->answer());
  EXPECT_GT(WaitCreated(other.proxy(), id, 77, "slow-1"), 0);
  // A new request of the same buyer still meets the flag.
  auto again = other.proxy().Purchase(Purchase(id, 77, "slow", "slow-2"));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->answer(), SOLD_OUT);
  other.Stop();
}

// The end of the sale is a shortcut too: a request decided during the sale keeps its decision
// when its retry reaches a provider after the end.
TEST_P(SeckillServiceTest, ARetryAfterTheEndKeepsTheDecisionMadeDuringTheSale) {
  ASSERT_NO_FATAL_FAILURE(StartProvider());
  InProcessProvider other;
  ASSERT_NO_FATAL_FAILURE(other.Start(config_));
  const int64_t id = CreateActivity(proxy(), {.stock = 1, .end_offset_ms = 1'500});
  ASSERT_GT(id, 0);
  ASSERT_EQ(Buy(id, "amy", "amy-1"), ACCEPTED);
  ASSERT_EQ(Buy(id, "ben", "ben-1"), SOLD_OUT);
  EXPECT_GT(WaitCreated(proxy(), id, 77, "amy-1"), 0);
  auto answer_there = [&](const std::string& user, const std::string& request) {
    auto r = other.proxy().Purchase(Purchase(id, 77, user, request));
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? r->answer() : PURCHASE_ANSWER_UNSPECIFIED;
  };
  int probe = 0;  // a new request each time: an answer, once given, is kept for its request
  ASSERT_TRUE(Eventually(
      [&] { return answer_there("cat", "cat-" + std::to_string(++probe)) == ENDED; }, 10s));
  EXPECT_EQ(answer_there("amy", "amy-1"), ACCEPTED);
  EXPECT_EQ(answer_there("ben", "ben-1"), SOLD_OUT);
  EXPECT_EQ(answer_there("amy", "amy-2"), ENDED);
  other.Stop();
}

// A provider that looked the activity up before it was preheated elsewhere still holds it as
// closed for a while; a request decided meanwhile by the provider that opened it is not
// answered NOT_STARTED there.
TEST_P(SeckillServiceTest, AProviderWhoseCopyPredatesThePreheatKeepsADecisionMadeElsewhere) {
  ASSERT_NO_FATAL_FAILURE(StartProvider());
  InProcessProvider other;
  ASSERT_NO_FATAL_FAILURE(other.Start(config_));
  const int64_t id = CreateActivity(proxy(), {.stock = 1}, /*preheat=*/false);
  ASSERT_GT(id, 0);
  auto answer_there = [&](const std::string& user, const std::string& request) {
    auto r = other.proxy().Purchase(Purchase(id, 77, user, request));
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? r->answer() : PURCHASE_ANSWER_UNSPECIFIED;
  };
  ASSERT_EQ(answer_there("cat", "cat-1"), NOT_STARTED);  // its copy: closed
  auto opened = proxy().Preheat(Ref(id));
  ASSERT_TRUE(opened.ok()) << opened.status();
  ASSERT_EQ(Buy(id, "amy", "amy-1"), ACCEPTED);
  EXPECT_EQ(answer_there("amy", "amy-1"), ACCEPTED);
  other.Stop();
}

// --- the crowd -----------------------------------------------------------------------------

TEST_P(SeckillServiceTest, TenUnitsAmongFiveThousandConcurrentBuyersWithDuplicates) {
  ASSERT_NO_FATAL_FAILURE(StartProvider());
  constexpr int64_t kStock = 10;
  constexpr int kBuyers = 4500;
  constexpr int kHot = 60;       // buyers whose duplicates race them before the sell-out
  constexpr int kRetries = 250;  // the same request id again
  constexpr int kRebuys = 250;   // the same user with a new request id
  constexpr int kCallers = 48;
  const int64_t id = CreateActivity(proxy(), {.stock = kStock});
  ASSERT_GT(id, 0);

  struct Call {
    std::string user;
    std::string request;
  };
  auto original = [](int user) {
    return Call{"user-" + std::to_string(user), "req-" + std::to_string(user)};
  };
  auto rebuy = [](int user) {
    return Call{"user-" + std::to_string(user), "req-" + std::to_string(user) + "-again"};
  };
  std::mt19937 rng(20240611);
  // First the hot buyers, each with a retry and a rebuy, all at once; then everyone else with
  // the remaining duplicates, in random order.
  std::vector<Call> hot;
  for (int i = 0; i < kHot; ++i) {
    hot.push_back(original(i));
    hot.push_back(original(i));
    hot.push_back(rebuy(i));
  }
  std::shuffle(hot.begin(), hot.end(), rng);
  std::vector<Call> rest;
  for (int i = kHot; i < kBuyers; ++i) rest.push_back(original(i));
  for (int i = kHot; i < kRetries; ++i) rest.push_back(original(static_cast<int>(rng() % kBuyers)));
  for (int i = kHot; i < kRebuys; ++i) rest.push_back(rebuy(static_cast<int>(rng() % kBuyers)));
  std::shuffle(rest.begin(), rest.end(), rng);
  std::vector<Call> calls = std::move(hot);
  calls.insert(calls.end(), rest.begin(), rest.end());
  ASSERT_EQ(calls.size(), static_cast<size_t>(kBuyers + kRetries + kRebuys));

  std::vector<PurchaseAnswer> answers(calls.size(), PURCHASE_ANSWER_UNSPECIFIED);
  std::vector<std::string> errors(calls.size());
  std::atomic<size_t> next{0};
  std::atomic<int> overloaded{0};
  const auto deadline = std::chrono::steady_clock::now() + 45s;
  std::vector<std::thread> callers;
  for (int t = 0; t < kCallers; ++t) {
    callers.emplace_back([&] {
      for (size_t i = next++; i < calls.size(); i = next++) {
        while (std::chrono::steady_clock::now() < deadline) {
          auto r = proxy().Purchase(Purchase(id, 77, calls[i].user, calls[i].request));
          if (r.ok()) {
            answers[i] = r->answer();
            break;
          }
          // Shed before it ran: retry the same request, as a client would.
          if (r.status().code() == StatusCode::OVERLOADED) {
            ++overloaded;
            std::this_thread::sleep_for(1ms);
            continue;
          }
          errors[i] = r.status().ToString();
          break;
        }
      }
    });
  }
  for (auto& caller : callers) caller.join();

  std::map<std::string, PurchaseAnswer> by_request;
  std::map<std::string, std::set<std::string>> accepted_by_user;
  std::map<PurchaseAnswer, int> tally;
  for (size_t i = 0; i < calls.size(); ++i) {
    ASSERT_TRUE(errors[i].empty()) << calls[i].request << ": " << errors[i];
    ASSERT_NE(answers[i], PURCHASE_ANSWER_UNSPECIFIED) << calls[i].request << ": no answer in time";
    auto [it, first] = by_request.emplace(calls[i].request, answers[i]);
    if (!first) {
      EXPECT_EQ(it->second, answers[i]) << "request " << calls[i].request << " answered twice";
    }
    ++tally[answers[i]];
    EXPECT_TRUE(answers[i] == ACCEPTED || answers[i] == SOLD_OUT || answers[i] == ALREADY_JOINED)
        << calls[i].request << ": " << PurchaseAnswer_Name(answers[i]);
    if (answers[i] == ACCEPTED) accepted_by_user[calls[i].user].insert(calls[i].request);
  }
  std::vector<std::string> accepted;
  for (const auto& [user, requests] : accepted_by_user) {
    EXPECT_EQ(requests.size(), 1u) << user << " was accepted twice";
    accepted.insert(accepted.end(), requests.begin(), requests.end());
  }
  EXPECT_EQ(accepted.size(), static_cast<size_t>(kStock));
  std::cout << "answers: accepted " << tally[ACCEPTED] << ", sold out " << tally[SOLD_OUT]
            << ", already joined " << tally[ALREADY_JOINED] << "; overloaded retries "
            << overloaded.load() << "\n";

  // Every accepted request ends as exactly one order, each its own.
  const ReconcileResponse report = Settle(proxy(), id, [](const ReconcileResponse& r) {
    return r.orders_unpaid() + r.orders_paid() + r.orders_cancelled() >= kStock;
  });
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.orders_unpaid(), kStock);
  EXPECT_EQ(report.orders_paid() + report.orders_cancelled(), 0);
  EXPECT_EQ(report.users_with_two_orders(), 0);
  EXPECT_EQ(report.database_stock(), 0);
  EXPECT_EQ(report.reservations(), kStock);
  EXPECT_EQ(report.reservations_without_order(), 0);
  if (cached()) {
    EXPECT_EQ(report.cache_stock(), 0);
  }
  std::set<int64_t> order_numbers;
  for (const std::string& request : accepted) {
    const int64_t order_no = WaitCreated(proxy(), id, 77, request);
    EXPECT_TRUE(order_numbers.insert(order_no).second) << "order " << order_no << " twice";
    OrderRecord order;
    ASSERT_TRUE(store().GetOrder(order_no, &order).ok());
    EXPECT_EQ(order.request_id, request);
  }
  // Nothing more is written later.
  std::this_thread::sleep_for(200ms);
  const ReconcileResponse later = Settle(proxy(), id);
  EXPECT_EQ(later.orders_unpaid(), kStock);
  EXPECT_TRUE(later.invariants_hold()) << later.ShortDebugString();
}

// --- pay, timeout, cancel -------------------------------------------------------------------

// Orders for `users` in activity `id`, in the order given.
std::vector<int64_t> PlaceOrders(SeckillServiceProxy& proxy, int64_t id, int count,
                                 const std::string& prefix) {
  std::vector<int64_t> orders;
  for (int i = 0; i < count; ++i) {
    const std::string user = prefix + std::to_string(i);
    auto r = proxy.Purchase(Purchase(id, 77, user, user + "-r"));
    EXPECT_TRUE(r.ok() && r->answer() == ACCEPTED) << user;
  }
  for (int i = 0; i < count; ++i) {
    orders.push_back(WaitCreated(proxy, id, 77, prefix + std::to_string(i) + "-r"));
  }
  return orders;
}

TEST_P(SeckillServiceTest, PayRacingThePayTimeoutNeverBothWins) {
  ASSERT_NO_FATAL_FAILURE(StartProvider());
  constexpr int kRounds = 3;
  constexpr int kOrders = 24;
  int paid_total = 0;
  int refunded_total = 0;
  for (int round = 0; round < kRounds; ++round) {
    const int64_t id = CreateActivity(proxy(), {.stock = kOrders, .pay_timeout_s = 1});
    ASSERT_GT(id, 0);
    const std::vector<int64_t> orders =
        PlaceOrders(proxy(), id, kOrders, "t" + std::to_string(round) + "-");
    std::vector<OrderRecord> records(kOrders);
    for (int i = 0; i < kOrders; ++i) {
      ASSERT_TRUE(store().GetOrder(orders[i], &records[i]).ok());
    }
    // Each payment is aimed at its order's deadline, from 120 ms before to 120 ms after, while
    // the closer (every 20 ms) cancels what is past due.
    std::vector<PayOutcome> outcomes(kOrders, PAY_OUTCOME_UNSPECIFIED);
    std::vector<std::string> errors(kOrders);
    std::vector<std::thread> payers;
    for (int i = 0; i < kOrders; ++i) {
      payers.emplace_back([&, i] {
        const int64_t at = records[i].pay_deadline_ms + (i % 13 - 6) * 20;
        const int64_t wait = at - WallMs();
        if (wait > 0) std::this_thread::sleep_for(std::chrono::milliseconds(wait));
        PayRequest pay;
        pay.set_order_no(orders[i]);
        pay.set_channel("alipay");
        pay.set_channel_txn_id("pay-" + std::to_string(orders[i]));
        auto r = proxy().Pay(pay);
        if (r.ok()) {
          outcomes[i] = r->outcome();
        } else {
          errors[i] = r.status().ToString();
        }
      });
    }
    for (auto& payer : payers) payer.join();
    // Everything unpaid is now past due and will be closed.
    const ReconcileResponse report =
        Settle(proxy(), id, [](const ReconcileResponse& r) { return r.orders_unpaid() == 0; });
    int paid = 0;
    int refunded = 0;
    for (int i = 0; i < kOrders; ++i) {
      ASSERT_TRUE(errors[i].empty()) << errors[i];
      const OrderState state = StateOf(orders[i]);
      if (outcomes[i] == PAID) {
        ++paid;
        EXPECT_EQ(state, OrderState::kPaid) << "order " << orders[i] << " paid and closed";
      } else {
        ++refunded;
        EXPECT_EQ(outcomes[i], REFUND_REQUIRED) << PayOutcome_Name(outcomes[i]);
        EXPECT_EQ(state, OrderState::kCancelled) << "order " << orders[i];
      }
    }
    EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
    EXPECT_EQ(report.orders_paid(), paid);
    EXPECT_EQ(report.orders_cancelled(), refunded);
    EXPECT_EQ(report.refunds_required(), refunded);
    EXPECT_EQ(report.database_stock(), refunded);
    if (cached()) {
      // The cancelled units reach the cache too (the closer publishes them).
      const ReconcileResponse cache = Settle(
          proxy(), id, [&](const ReconcileResponse& r) { return r.cache_stock() == refunded; });
      EXPECT_EQ(cache.cache_stock(), refunded);
    }
    paid_total += paid;
    refunded_total += refunded;
  }
  std::cout << "pay vs timeout: " << paid_total << " paid, " << refunded_total << " closed first\n";
}

TEST_P(SeckillServiceTest, PayRacingCancelOrderNeverBothWins) {
  ASSERT_NO_FATAL_FAILURE(StartProvider());
  constexpr int kOrders = 60;
  const int64_t id = CreateActivity(proxy(), {.stock = kOrders});
  ASSERT_GT(id, 0);
  const std::vector<int64_t> orders = PlaceOrders(proxy(), id, kOrders, "c-");

  std::vector<CallFuture<PayResponse>> pays;
  std::vector<CallFuture<CancelOrderResponse>> cancels;
  for (int i = 0; i < kOrders; ++i) {
    PayRequest pay;
    pay.set_order_no(orders[i]);
    pay.set_channel("wechat");
    pay.set_channel_txn_id("w-" + std::to_string(i));
    CancelOrderRequest cancel;
    cancel.set_order_no(orders[i]);
    // Alternate which one is sent first.
    if (i % 2 == 0) {
      pays.push_back(proxy().PayAsync(pay));
      cancels.push_back(proxy().CancelOrderAsync(cancel));
    } else {
      cancels.push_back(proxy().CancelOrderAsync(cancel));
      pays.push_back(proxy().PayAsync(pay));
    }
  }
  int paid = 0;
  int cancelled = 0;
  for (int i = 0; i < kOrders; ++i) {
    auto pay = pays[i].get();
    auto cancel = cancels[i].get();
    ASSERT_TRUE(pay.ok()) << pay.status();
    ASSERT_TRUE(cancel.ok()) << cancel.status();
    const bool pay_won = pay->outcome() == PAID;
    EXPECT_NE(pay_won, cancel->cancelled()) << "order " << orders[i];
    if (pay_won) {
      ++paid;
      EXPECT_EQ(cancel->state(), "PAID");
      EXPECT_EQ(StateOf(orders[i]), OrderState::kPaid);
    } else {
      ++cancelled;
      EXPECT_EQ(pay->outcome(), REFUND_REQUIRED);
      EXPECT_EQ(cancel->state(), "CANCELLED");
      EXPECT_EQ(StateOf(orders[i]), OrderState::kCancelled);
    }
  }
  const ReconcileResponse report = Settle(proxy(), id);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.orders_paid(), paid);
  EXPECT_EQ(report.orders_cancelled(), cancelled);
  EXPECT_EQ(report.refunds_required(), cancelled);
  EXPECT_EQ(report.database_stock(), cancelled);
  std::cout << "pay vs cancel: " << paid << " paid, " << cancelled << " cancelled\n";
}

TEST_P(SeckillServiceTest, ACancelledUnitComesBackButNotToItsBuyer) {
  ASSERT_NO_FATAL_FAILURE(StartProvider());
  const int64_t id = CreateActivity(proxy(), {.stock = 1});
  ASSERT_GT(id, 0);
  ASSERT_EQ(Buy(id, "first", "first-1"), ACCEPTED);
  const int64_t order_no = WaitCreated(proxy(), id, 77, "first-1");
  ASSERT_GT(order_no, 0);
  // Sold out, and the flag is up.
  EXPECT_EQ(Buy(id, "second", "second-1"), SOLD_OUT);
  EXPECT_EQ(Buy(id, "third", "third-1"), SOLD_OUT);

  CancelOrderRequest cancel;
  cancel.set_order_no(order_no);
  auto cancelled = proxy().CancelOrder(cancel);
  ASSERT_TRUE(cancelled.ok()) << cancelled.status();
  EXPECT_TRUE(cancelled->cancelled());
  EXPECT_EQ(cancelled->state(), "CANCELLED");
  auto again = proxy().CancelOrder(cancel);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_FALSE(again->cancelled());
  EXPECT_EQ(again->state(), "CANCELLED");

  auto activity = proxy().GetActivity(Ref(id));
  ASSERT_TRUE(activity.ok()) << activity.status();
  EXPECT_EQ(activity->database_stock(), 1);
  EXPECT_EQ(activity->cache_stock(), cached() ? 1 : -1);

  // The cancelled buyer may not buy again; earlier answers stay; someone else gets the unit,
  // at once (the sold-out flag was cleared).
  EXPECT_EQ(Buy(id, "first", "first-2"), ALREADY_JOINED);
  EXPECT_EQ(Buy(id, "second", "second-1"), SOLD_OUT);
  ASSERT_EQ(Buy(id, "second", "second-2"), ACCEPTED);
  const int64_t second_order = WaitCreated(proxy(), id, 77, "second-2");
  EXPECT_NE(second_order, order_no);
  EXPECT_EQ(Buy(id, "third", "third-2"), SOLD_OUT);

  // A late payment of the cancelled order is refunded, not a second sale.
  PayRequest pay;
  pay.set_order_no(order_no);
  pay.set_channel("alipay");
  pay.set_channel_txn_id("late");
  auto paid = proxy().Pay(pay);
  ASSERT_TRUE(paid.ok()) << paid.status();
  EXPECT_EQ(paid->outcome(), REFUND_REQUIRED);
  pay.set_order_no(second_order);
  pay.set_channel_txn_id("on-time");
  paid = proxy().Pay(pay);
  ASSERT_TRUE(paid.ok()) << paid.status();
  EXPECT_EQ(paid->outcome(), PAID);
  paid = proxy().Pay(pay);
  ASSERT_TRUE(paid.ok()) << paid.status();
  EXPECT_EQ(paid->outcome(), ALREADY_PAID);
  pay.set_channel_txn_id("second-payment");
  paid = proxy().Pay(pay);
  ASSERT_TRUE(paid.ok()) << paid.status();
  EXPECT_EQ(paid->outcome(), REFUND_REQUIRED);

  const ReconcileResponse report = Settle(proxy(), id);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.orders_paid(), 1);
  EXPECT_EQ(report.orders_cancelled(), 1);
  EXPECT_EQ(report.orders_unpaid(), 0);
  EXPECT_EQ(report.refunds_required(), 2);
  EXPECT_EQ(report.database_stock(), 0);
  EXPECT_EQ(report.users_with_two_orders(), 0);
  if (cached()) {
    EXPECT_EQ(report.cache_stock(), 0);
    EXPECT_EQ(report.reservations(), 2);
  }
}

// --- a retry while the first attempt is still being decided ---------------------------------

// The real SQLite store, with one hook: PlaceOrder of `held_request` returns only when the test
// lets it, so the test can interleave other calls between a decision and its answer.
class HoldingStore final : public OrderStore {
 public:
  HoldingStore(std::unique_ptr<OrderStore> real, std::string held_request)
      : real_(std::move(real)), held_request_(std::move(held_request)) {}

  void WaitHeld() {
    std::unique_lock lock(mu_);
    ASSERT_TRUE(cv_.wait_for(lock, 10s, [&] { return held_; }));
  }
  void Release() {
    std::lock_guard lock(mu_);
    released_ = true;
    cv_.notify_all();
  }

  Status Initialize() override { return real_->Initialize(); }
  Status CreateActivity(ActivityRecord* a) override { return real_->CreateActivity(a); }
  Status GetActivity(int64_t id, ActivityRecord* out) override {
    return real_->GetActivity(id, out);
  }
  Status MarkOpen(int64_t id) override { return real_->MarkOpen(id); }
  Status BeginCacheEpoch(int64_t id, int64_t sku, int64_t epoch,
                         const std::vector<RequestScope>& reservations,
                         CacheEpochBase* out) override {
    return real_->BeginCacheEpoch(id, sku, epoch, reservations, out);
  }
  Status KnowsCacheEpoch(int64_t id, int64_t sku, int64_t epoch, bool* known) override {
    return real_->KnowsCacheEpoch(id, sku, epoch, known);
  }
  Status ListOpenActivities(int64_t after_ms, std::vector<ActivityRecord>* out) override {
    return real_->ListOpenActivities(after_ms, out);
  }
  Status ListBuyers(int64_t id, int64_t sku, std::vector<std::string>* out) override {
    return real_->ListBuyers(id, sku, out);
  }
  Status PlaceOrder(const OrderDraft& draft, PlaceResult* result) override {
    Status s = real_->PlaceOrder(draft, result);
    if (draft.request_id == held_request_) {
      std::unique_lock lock(mu_);
      if (!held_) {
        held_ = true;
        cv_.notify_all();
        cv_.wait_for(lock, 10s, [&] { return released_; });
      }
    }
    return s;
  }
  Status FailRequest(const RequestScope& scope, const std::string& reason,
                     RequestRecord* decided) override {
    return real_->FailRequest(scope, reason, decided);
  }
  Status GetRequest(const RequestScope& id, RequestRecord* out) override {
    return real_->GetRequest(id, out);
  }
  Status GetOrder(int64_t order_no, OrderRecord* out) override {
    return real_->GetOrder(order_no, out);
  }
  Status Pay(int64_t order_no, const std::string& channel, const std::string& txn,
             ChannelReport report, PaymentResult* outcome) override {
    return real_->Pay(order_no, channel, txn, report, outcome);
  }
  Status RecordRefund(const std::string& channel, const std::string& txn,
                      const std::string& refund_id, RefundResult* outcome) override {
    return real_->RecordRefund(channel, txn, refund_id, outcome);
  }
  Status CancelUnpaid(int64_t order_no, CancelResult* result) override {
    return real_->CancelUnpaid(order_no, result);
  }
  Status ListExpiredUnpaid(int64_t now_ms, int limit, std::vector<int64_t>* out) override {
    return real_->ListExpiredUnpaid(now_ms, limit, out);
  }
  Status ListPendingCacheReleases(int limit, std::vector<PendingCacheRelease>* out) override {
    return real_->ListPendingCacheReleases(limit, out);
  }
  Status MarkCacheReleased(int64_t order_no) override { return real_->MarkCacheReleased(order_no); }
  Status Count(int64_t id, int64_t sku, StoreCounts* out) override {
    return real_->Count(id, sku, out);
  }

 private:
  std::unique_ptr<OrderStore> real_;
  const std::string held_request_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool held_ = false;
  bool released_ = false;
};

// --- payments whose result is unknown, refunds ------------------------------------------------

PayRequest Payment(int64_t order_no, const std::string& txn, PaymentReport report) {
  PayRequest pay;
  pay.set_order_no(order_no);
  pay.set_channel("alipay");
  pay.set_channel_txn_id(txn);
  pay.set_report(report);
  return pay;
}

// The channel did not answer for two payments: their orders outlive the pay timeout, which
// closes the order nobody paid, until the results arrive; the one that failed is then closed.
TEST_P(SeckillServiceTest, AnUnknownPaymentOutlivesThePayTimeoutUntilItsResultArrives) {
  ASSERT_NO_FATAL_FAILURE(StartProvider());
  const int64_t id = CreateActivity(proxy(), {.stock = 3, .pay_timeout_s = 2});
  ASSERT_GT(id, 0);
  const std::vector<int64_t> orders = PlaceOrders(proxy(), id, 3, "unknown-");
  ASSERT_EQ(orders.size(), 3u);
  const int64_t succeeds = orders[0];
  const int64_t fails = orders[1];
  for (int64_t order_no : {succeeds, fails}) {
    auto r = proxy().Pay(Payment(order_no, "q-" + std::to_string(order_no), PAYMENT_UNKNOWN));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->outcome(), PENDING_CONFIRMATION);
  }
  // The buyer cannot cancel an order whose money may have been taken.
  CancelOrderRequest cancel;
  cancel.set_order_no(succeeds);
  auto cancelled = proxy().CancelOrder(cancel);
  ASSERT_TRUE(cancelled.ok()) << cancelled.status();
  EXPECT_FALSE(cancelled->cancelled());
  EXPECT_EQ(cancelled->state(), "CONFIRMING");

  // The closer has swept past every deadline once the unpaid order is closed.
  ReconcileResponse report =
      Settle(proxy(), id, [](const ReconcileResponse& r) { return r.orders_cancelled() == 1; });
  EXPECT_EQ(report.orders_confirming(), 2) << report.ShortDebugString();
  EXPECT_EQ(report.orders_unpaid(), 0);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(StateOf(orders[2]), OrderState::kCancelled);

  auto r = proxy().Pay(Payment(fails, "q-" + std::to_string(fails), PAYMENT_FAILED));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->outcome(), NOT_PAID);
  r = proxy().Pay(Payment(succeeds, "q-" + std::to_string(succeeds), PAYMENT_UNKNOWN));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->outcome(), PENDING_CONFIRMATION);
  r = proxy().Pay(Payment(succeeds, "q-" + std::to_string(succeeds), PAYMENT_SUCCEEDED));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->outcome(), PAID);

  // Open again and past due, the failed one is closed.
  report =
      Settle(proxy(), id, [](const ReconcileResponse& r) { return r.orders_cancelled() == 2; });
  EXPECT_EQ(report.orders_paid(), 1) << report.ShortDebugString();
  EXPECT_EQ(report.orders_confirming(), 0);
  EXPECT_EQ(report.database_stock(), 2);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(StateOf(succeeds), OrderState::kPaid);
  EXPECT_EQ(StateOf(fails), OrderState::kCancelled);

  auto bad = proxy().Pay(Payment(succeeds, "q-bad", static_cast<PaymentReport>(7)));
  EXPECT_EQ(bad.status().code(), StatusCode::INVALID_ARGUMENT) << bad.status();
  EXPECT_NE(bad.status().message().find("report"), std::string::npos) << bad.status();
}

TEST_P(SeckillServiceTest, ARefundIsRecordedOncePerPayment) {
  ASSERT_NO_FATAL_FAILURE(StartProvider());
  const int64_t id = CreateActivity(proxy(), {.stock = 2});
  ASSERT_GT(id, 0);
  const std::vector<int64_t> orders = PlaceOrders(proxy(), id, 1, "refund-");
  ASSERT_EQ(orders.size(), 1u);
  auto paid = proxy().Pay(Payment(orders[0], "first", PAYMENT_SUCCEEDED));
  ASSERT_TRUE(paid.ok()) << paid.status();
  EXPECT_EQ(paid->outcome(), PAID);
  paid = proxy().Pay(Payment(orders[0], "second", PAYMENT_SUCCEEDED));
  ASSERT_TRUE(paid.ok()) << paid.status();
  EXPECT_EQ(paid->outcome(), REFUND_REQUIRED);
  EXPECT_EQ(Settle(proxy(), id).refunds_required(), 1);

  RefundRequest refund;
  refund.set_channel("alipay");
  refund.set_channel_txn_id("second");
  refund.set_refund_id("rf-1");
  auto refunded = proxy().Refund(refund);
  ASSERT_TRUE(refunded.ok()) << refunded.status();
  EXPECT_EQ(refunded->outcome(), REFUNDED);
  refunded = proxy().Refund(refund);  // the reply was lost; the caller asks again
  ASSERT_TRUE(refunded.ok()) << refunded.status();
  EXPECT_EQ(refunded->outcome(), ALREADY_REFUNDED);
  refund.set_refund_id("rf-2");  // a second refund of the same money
  refunded = proxy().Refund(refund);
  EXPECT_EQ(refunded.status().code(), StatusCode::FAILED_PRECONDITION) << refunded.status();
  EXPECT_NE(refunded.status().message().find("rf-1"), std::string::npos) << refunded.status();
  refund.set_channel_txn_id("first");  // the payment that settled the order is owed nothing
  refunded = proxy().Refund(refund);
  EXPECT_EQ(refunded.status().code(), StatusCode::FAILED_PRECONDITION) << refunded.status();
  refund.set_channel_txn_id("never");
  refunded = proxy().Refund(refund);
  EXPECT_EQ(refunded.status().code(), StatusCode::NOT_FOUND) << refunded.status();
  refund.set_refund_id("");
  refunded = proxy().Refund(refund);
  EXPECT_EQ(refunded.status().code(), StatusCode::INVALID_ARGUMENT) << refunded.status();
  EXPECT_NE(refunded.status().message().find("refund_id"), std::string::npos);

  const ReconcileResponse report = Settle(proxy(), id);
  EXPECT_EQ(report.refunds_required(), 0) << report.ShortDebugString();
  EXPECT_EQ(report.refunds_done(), 1);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
}

// A client retries a purchase (its first attempt timed out) while this provider is still
// deciding the first attempt, and meanwhile the sale sold out: the retry must not be answered
// SOLD_OUT by the sold-out flag when the first attempt got the unit.
TEST(SeckillServiceRetryTest, ARetryDuringTheFirstAttemptGetsTheSameAnswer) {
  TempDir dir;
  auto real =
      std::make_unique<SqlOrderStore>(SqliteOrderDatabase((dir.path() / "retry.db").string(), 4));
  ASSERT_TRUE(real->Initialize().ok());
  HoldingStore store(std::move(real), "slow-1");
  std::atomic<int64_t> next_order{100};
  SeckillDeps deps;
  deps.store = &store;
  deps.next_order_no = [&](int64_t* id) {
    *id = ++next_order;
    return Status::Ok();
  };
  deps.now_ms = [] { return WallMs(); };
  deps.sold_out_ttl_ms = 60'000;
  SeckillCore core(std::move(deps));
  SeckillServiceImpl service(&core);

  ServerContext context;
  CreateActivityResponse created;
  ASSERT_TRUE(service.CreateActivity(context, ActivityRequest({.stock = 1}), &created).ok());
  const int64_t id = created.activity_id();
  ActivityRef ref;
  ref.set_activity_id(id);
  PreheatResponse preheated;
  ASSERT_TRUE(service.Preheat(context, ref, &preheated).ok());

  auto buy = [&](const std::string& user, const std::string& request) {
    ServerContext call;
    call.set_verified_user(user);
    PurchaseResponse response;
    Status s = service.Purchase(call, Purchase(id, 77, user, request), &response);
    EXPECT_TRUE(s.ok()) << s;
    return response.answer();
  };
  // The first attempt takes the only unit and is slow to answer.
  PurchaseAnswer first = PURCHASE_ANSWER_UNSPECIFIED;
  std::thread first_attempt([&] { first = buy("slow", "slow-1"); });
  ASSERT_NO_FATAL_FAILURE(store.WaitHeld());
  // Someone else finds the sale sold out, which raises the flag.
  EXPECT_EQ(buy("other", "other-1"), SOLD_OUT);
  // The retry arrives before the first attempt has answered.
  PurchaseAnswer retry = PURCHASE_ANSWER_UNSPECIFIED;
  std::thread retry_attempt([&] { retry = buy("slow", "slow-1"); });
  std::this_thread::sleep_for(100ms);
  store.Release();
  first_attempt.join();
  retry_attempt.join();

  EXPECT_EQ(first, ACCEPTED);
  EXPECT_EQ(retry, ACCEPTED) << "the retry got " << PurchaseAnswer_Name(retry);
  EXPECT_EQ(buy("slow", "slow-1"), ACCEPTED);
  RequestRecord decided;
  ASSERT_TRUE(store.GetRequest({.request_id = "slow-1"}, &decided).ok());
  EXPECT_TRUE(decided.created);
}

// --- buyers are who their tokens say -------------------------------------------------------

CallOptions WithUserToken(const std::string& token) {
  CallOptions options;
  options.attachments[std::string(plugins::kUserTokenAttachment)] = token;
  return options;
}

// Without a token there is no buyer, whatever user ids the requests name: one client cannot
// take the stock by rotating them. A token that is expired, forged or for another user than
// the request names is refused too, and nothing is sold.
TEST_P(SeckillServiceTest, PurchasesWithoutAValidTokenOfTheirUserAreRefused) {
  ASSERT_NO_FATAL_FAILURE(StartProvider());
  const int64_t id = CreateActivity(proxy(), {.stock = 3});
  ASSERT_GT(id, 0);
  for (int i = 0; i < 5; ++i) {
    const std::string user = "rotating-" + std::to_string(i);
    auto r = proxy().Purchase(Purchase(id, 77, user, user + "-r"), WithUserToken(""));
    EXPECT_EQ(r.status().code(), StatusCode::UNAUTHENTICATED) << r.status();
    EXPECT_NE(r.status().message().find("missing user token"), std::string::npos) << r.status();
  }
  const int64_t now_s = WallMs() / 1000;
  auto expired =
      proxy().Purchase(Purchase(id, 77, "eve", "eve-1"),
                       WithUserToken(plugins::MakeUserToken(kUserTokenKeyId, kUserTokenSecret,
                                                            "eve", now_s - 7200, now_s - 3600)));
  EXPECT_EQ(expired.status().code(), StatusCode::UNAUTHENTICATED) << expired.status();
  EXPECT_NE(expired.status().message().find("expired user token"), std::string::npos);
  auto forged = proxy().Purchase(
      Purchase(id, 77, "eve", "eve-2"),
      WithUserToken(plugins::MakeUserToken(kUserTokenKeyId, "guessed", "eve", now_s, now_s + 60)));
  EXPECT_EQ(forged.status().code(), StatusCode::UNAUTHENTICATED) << forged.status();
  EXPECT_NE(forged.status().message().find("invalid user token signature"), std::string::npos);
  // Alice's token, for a purchase that says it is Bob's.
  auto other = proxy().Purchase(Purchase(id, 77, "bob", "bob-1"), AsUser("alice"));
  EXPECT_EQ(other.status().code(), StatusCode::PERMISSION_DENIED) << other.status();

  auto activity = proxy().GetActivity(Ref(id));
  ASSERT_TRUE(activity.ok()) << activity.status();
  EXPECT_EQ(activity->database_stock(), 3);
  EXPECT_EQ(activity->cache_stock(), cached() ? 3 : -1);

  // Without a user id the purchase is the token's user's.
  auto bought = proxy().Purchase(Purchase(id, 77, "", "alice-1"), AsUser("alice"));
  ASSERT_TRUE(bought.ok()) << bought.status();
  EXPECT_EQ(bought->answer(), ACCEPTED);
  GetResultRequest lookup;
  lookup.set_request_id("alice-1");
  lookup.set_activity_id(id);
  lookup.set_sku_id(77);
  int64_t order_no = 0;
  ASSERT_TRUE(Eventually([&] {
    auto r = proxy().GetResult(lookup, AsUser("alice"));
    order_no = r.ok() && r->state() == CREATED ? r->order_no() : 0;
    return order_no > 0;
  }));
  OrderRecord order;
  ASSERT_TRUE(store().GetOrder(order_no, &order).ok());
  EXPECT_EQ(order.user_id, "alice");
}

// Order numbers are guessable: Bob can neither pay, cancel nor look up Alice's order, and
// learns no more than he would of an order that does not exist.
TEST_P(SeckillServiceTest, AnotherUsersOrderIsNotFoundToPayCancelOrLookUp) {
  ASSERT_NO_FATAL_FAILURE(StartProvider());
  const int64_t id = CreateActivity(proxy(), {.stock = 2});
  ASSERT_GT(id, 0);
  ASSERT_EQ(Buy(id, "alice", "alice-1"), ACCEPTED);
  const int64_t order_no = WaitCreated(proxy(), id, 77, "alice-1");
  ASSERT_GT(order_no, 0);
  const int64_t missing = order_no + 1'000'000;  // no such order

  const auto without_number = [](const Status& s, int64_t number) {
    std::string text = s.message();
    const std::string digits = std::to_string(number);
    if (const size_t at = text.find(digits); at != std::string::npos) {
      text.replace(at, digits.size(), "N");
    }
    return text;
  };
  CancelOrderRequest cancel;
  cancel.set_order_no(order_no);
  auto stolen_cancel = proxy().CancelOrder(cancel, AsUser("bob"));
  EXPECT_EQ(stolen_cancel.status().code(), StatusCode::NOT_FOUND) << stolen_cancel.status();
  cancel.set_order_no(missing);
  auto no_cancel = proxy().CancelOrder(cancel, AsUser("bob"));
  EXPECT_EQ(no_cancel.status().code(), StatusCode::NOT_FOUND) << no_cancel.status();
  EXPECT_EQ(without_number(stolen_cancel.status(), order_no),
            without_number(no_cancel.status(), missing));

  PayRequest pay;
  pay.set_order_no(order_no);
  pay.set_channel("alipay");
  pay.set_channel_txn_id("bob-pays");
  auto stolen_pay = proxy().Pay(pay, AsUser("bob"));
  EXPECT_EQ(stolen_pay.status().code(), StatusCode::NOT_FOUND) << stolen_pay.status();
  pay.set_order_no(missing);
  auto no_pay = proxy().Pay(pay, AsUser("bob"));
  EXPECT_EQ(no_pay.status().code(), StatusCode::NOT_FOUND) << no_pay.status();
  EXPECT_EQ(without_number(stolen_pay.status(), order_no),
            without_number(no_pay.status(), missing));

  GetResultRequest lookup;
  lookup.set_request_id("alice-1");
  lookup.set_activity_id(id);
  lookup.set_sku_id(77);
  auto peek = proxy().GetResult(lookup, AsUser("bob"));
  EXPECT_EQ(peek.status().code(), StatusCode::NOT_FOUND) << peek.status();
  lookup.set_user_id("alice");
  auto claimed = proxy().GetResult(lookup, AsUser("bob"));
  EXPECT_EQ(claimed.status().code(), StatusCode::PERMISSION_DENIED) << claimed.status();

  // Alice's order is untouched, and hers to pay.
  EXPECT_EQ(StateOf(order_no), OrderState::kUnpaid);
  pay.set_order_no(order_no);
  pay.set_channel_txn_id("alice-pays");
  auto paid = proxy().Pay(pay, AsUser("alice"));
  ASSERT_TRUE(paid.ok()) << paid.status();
  EXPECT_EQ(paid->outcome(), PAID);
  const ReconcileResponse report = Settle(proxy(), id);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.orders_paid(), 1);
  EXPECT_EQ(report.refunds_required(), 0);
}

INSTANTIATE_TEST_SUITE_P(Backends, SeckillServiceTest,
                         ::testing::Values(Backend::kEmbedded, Backend::kRedisMariaDb),
                         BackendName);

}  // namespace
}  // namespace ferry::seckill
