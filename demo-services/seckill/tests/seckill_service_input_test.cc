// The seckill provider over RPC, on both backends (seckill_service_fixture.h): documented
// statuses for bad input, preheat idempotence, the sale window, replay by request id, and
// request ids scoped to their buyer and activity.

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "seckill_service_fixture.h"

namespace ferry::seckill {
namespace {

using namespace std::chrono_literals;
using namespace ferry::seckill::testing;

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
  auto preheat = proxy().Preheat(PreheatOf(unknown));
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

  StartPaymentRequest pay;
  pay.set_order_no(0);
  pay.set_channel("sim");
  auto paid = proxy().StartPayment(pay, AsUser("u"));
  EXPECT_EQ(paid.status().code(), StatusCode::INVALID_ARGUMENT) << paid.status();
  EXPECT_NE(paid.status().message().find("order_no"), std::string::npos);
  pay.set_order_no(424242);
  paid = proxy().StartPayment(pay, AsUser("u"));
  EXPECT_EQ(paid.status().code(), StatusCode::NOT_FOUND) << paid.status();
  GetOrderRequest look;
  look.set_order_no(-1);
  auto looked = proxy().GetOrder(look, AsUser("u"));
  EXPECT_EQ(looked.status().code(), StatusCode::INVALID_ARGUMENT) << looked.status();
  look.set_order_no(424242);
  looked = proxy().GetOrder(look, AsUser("u"));
  EXPECT_EQ(looked.status().code(), StatusCode::NOT_FOUND) << looked.status();

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
  EXPECT_EQ(StocksOf(id), Stocks(5, -1));
  EXPECT_EQ(before->activity().stock(), 5);
  EXPECT_EQ(before->activity().activity_id(), id);
  // Not open yet.
  EXPECT_EQ(Buy(id, "early", "r-early"), NOT_STARTED);

  auto first = proxy().Preheat(PreheatOf(id));
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_FALSE(first->already_open());
  EXPECT_EQ(first->cached_stock(), 5);
  auto second = proxy().Preheat(PreheatOf(id));
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_TRUE(second->already_open());
  EXPECT_EQ(second->cached_stock(), 5);

  auto open = proxy().GetActivity(Ref(id));
  ASSERT_TRUE(open.ok()) << open.status();
  EXPECT_EQ(open->state(), OPEN);
  EXPECT_EQ(StocksOf(id), Stocks(5, cached() ? 5 : -1));

  // A purchase, then another preheat: the stock is what is left, not reloaded.
  ASSERT_EQ(Buy(id, "buyer", "r-buyer"), ACCEPTED);
  ASSERT_GT(WaitCreated(proxy(), id, 77, "r-buyer"), 0);
  auto third = proxy().Preheat(PreheatOf(id));
  ASSERT_TRUE(third.ok()) << third.status();
  EXPECT_TRUE(third->already_open());
  EXPECT_EQ(third->cached_stock(), 4);
  EXPECT_EQ(StocksOf(id), Stocks(4, cached() ? 4 : -1));

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
  for (int64_t id : {future, ended}) EXPECT_EQ(StocksOf(id), Stocks(3, cached() ? 3 : -1));
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

}  // namespace
}  // namespace ferry::seckill
