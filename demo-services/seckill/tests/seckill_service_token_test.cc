// The seckill provider over RPC, on both backends (seckill_service_fixture.h): buyers are who
// their user tokens say, for purchases and for their orders.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ferry/plugins/user_token.h"
#include "loopback_provider.h"
#include "seckill_service_fixture.h"

namespace ferry::seckill {
namespace {

using namespace std::chrono_literals;
using namespace ferry::seckill::testing;

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

  EXPECT_EQ(StocksOf(id), Stocks(3, cached() ? 3 : -1));

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
TEST_P(SeckillServiceTest, AnotherUsersOrderIsNotFoundToCancelPayOrLookUp) {
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

  GetOrderRequest look;
  look.set_order_no(order_no);
  auto stolen_look = proxy().GetOrder(look, AsUser("bob"));
  EXPECT_EQ(stolen_look.status().code(), StatusCode::NOT_FOUND) << stolen_look.status();
  look.set_order_no(missing);
  auto no_look = proxy().GetOrder(look, AsUser("bob"));
  EXPECT_EQ(no_look.status().code(), StatusCode::NOT_FOUND) << no_look.status();
  EXPECT_EQ(without_number(stolen_look.status(), order_no),
            without_number(no_look.status(), missing));
  StartPaymentRequest pay;
  pay.set_order_no(order_no);
  pay.set_channel("sim");
  auto stolen_pay = proxy().StartPayment(pay, AsUser("bob"));
  EXPECT_EQ(stolen_pay.status().code(), StatusCode::NOT_FOUND) << stolen_pay.status();

  GetResultRequest lookup;
  lookup.set_request_id("alice-1");
  lookup.set_activity_id(id);
  lookup.set_sku_id(77);
  auto peek = proxy().GetResult(lookup, AsUser("bob"));
  EXPECT_EQ(peek.status().code(), StatusCode::NOT_FOUND) << peek.status();
  lookup.set_user_id("alice");
  auto claimed = proxy().GetResult(lookup, AsUser("bob"));
  EXPECT_EQ(claimed.status().code(), StatusCode::PERMISSION_DENIED) << claimed.status();

  // Alice's order is untouched, and hers to see.
  EXPECT_EQ(StateOf(order_no), OrderState::kUnpaid);
  look.set_order_no(order_no);
  auto hers = proxy().GetOrder(look, AsUser("alice"));
  ASSERT_TRUE(hers.ok()) << hers.status();
  EXPECT_EQ(hers->state(), "UNPAID");
  EXPECT_EQ(hers->amount_cents(), 1999);
  const ReconcileResponse report = Settle(proxy(), id);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.orders_unpaid(), 1);
}

// --- the shipped configurations -------------------------------------------------------------

// Their operator methods need an operator: a signed call, or a user token with the role
// operator; the buyers' need a user token, and a channel's notification neither (its own
// signature is checked instead).
class SeckillShippedConfigTest : public ::testing::TestWithParam<std::string> {};

// A user token of the shipped config's key for `user`, with `roles`.
CallOptions ShippedUserToken(std::string_view user, std::vector<std::string_view> roles) {
  const int64_t now_s = WallMs() / 1000;
  return WithUserToken(plugins::MakeUserToken("demo-1", "change-me-seckill-user-tokens",
                                              {.user = user,
                                               .audience = "seckill",
                                               .token_id = plugins::NewUserTokenId(),
                                               .issued_unix_s = now_s,
                                               .expires_unix_s = now_s + 600,
                                               .roles = std::move(roles)}));
}

TEST_P(SeckillShippedConfigTest, OperatorMethodsNeedAnOperatorAndBuyersATokenOfTheirOwn) {
  TempDir dir;
  InProcessProvider provider;
  ASSERT_NO_FATAL_FAILURE(SharedServers::Start());
  ASSERT_NO_FATAL_FAILURE(provider.Start(
      EmbeddedConfig(dir.path()),
      testsupport::ServerFiltersOf(std::string(SECKILL_CONFIG_DIR) + "/" + GetParam(),
                                   SharedServers::redis().address())));
  auto anonymous_channel =
      testsupport::LoopbackChannel(provider.port(), testsupport::LoopbackClientOptions(15s));
  ASSERT_NE(anonymous_channel, nullptr);
  SeckillServiceProxy anonymous(anonymous_channel);
  // Anonymous operators' calls: refused by authz, whose rules ask for an operator.
  const CreateActivityRequest create = ActivityRequest({.stock = 2});
  const auto created_anonymously = anonymous.CreateActivity(create);
  EXPECT_EQ(created_anonymously.status().code(), StatusCode::PERMISSION_DENIED)
      << created_anonymously.status();
  EXPECT_NE(created_anonymously.status().message().find("authz: permission denied for "
                                                        "ferry.seckill.SeckillService/"
                                                        "CreateActivity (an anonymous call)"),
            std::string::npos)
      << created_anonymously.status();
  EXPECT_EQ(anonymous.Preheat(PreheatOf(1)).status().code(), StatusCode::PERMISSION_DENIED);
  ActivityRef ref;
  ref.set_activity_id(1);
  EXPECT_EQ(anonymous.Reconcile(ref).status().code(), StatusCode::PERMISSION_DENIED);
  RefundRequest refund;
  refund.set_channel("sim");
  refund.set_channel_txn_id("t-1");
  refund.set_refund_id("r-1");
  EXPECT_EQ(anonymous.Refund(refund).status().code(), StatusCode::PERMISSION_DENIED);
  BlacklistRequest blacklist;
  blacklist.add_add_users("mallory");
  EXPECT_EQ(anonymous.Blacklist(blacklist).status().code(), StatusCode::PERMISSION_DENIED);
  // A buyer is not an operator.
  EXPECT_EQ(anonymous.CreateActivity(create, ShippedUserToken("eve", {})).status().code(),
            StatusCode::PERMISSION_DENIED);
  // A buyer's method with no user token: refused by user_token, not by auth.
  auto purchase = anonymous.Purchase(Purchase(1, 77, "eve", "eve-1"));
  EXPECT_EQ(purchase.status().code(), StatusCode::UNAUTHENTICATED) << purchase.status();
  EXPECT_NE(purchase.status().message().find("user token"), std::string::npos) << purchase.status();
  // The public status and the channel's notifications pass both filters and are answered on
  // their merits: there is no activity 1, and no channel signs as "nobody".
  EXPECT_EQ(anonymous.GetActivity(ref).status().code(), StatusCode::NOT_FOUND);
  ChannelNotification notification;
  notification.set_channel("nobody");
  auto notified = anonymous.NotifyPayment(notification);
  EXPECT_EQ(notified.status().code(), StatusCode::UNAUTHENTICATED) << notified.status();
  EXPECT_NE(notified.status().message().find("no payment channel 'nobody'"), std::string::npos)
      << notified.status();

  ClientOptions signed_options = testsupport::LoopbackClientOptions(15s);
  signed_options.filters = {FilterSpec::FromYaml(
      "auth",
      "{keys: [{id: seckill-operators-demo, secret: change-me-seckill-operators}], caller: ops}")};
  signed_options.filters[0].allow_sample_secrets = true;  // the shipped config's operator key
  auto signed_channel = testsupport::LoopbackChannel(provider.port(), signed_options);
  ASSERT_NE(signed_channel, nullptr);
  SeckillServiceProxy operator_proxy(signed_channel);
  auto created = operator_proxy.CreateActivity(create);
  ASSERT_TRUE(created.ok()) << created.status();
  auto preheated = operator_proxy.Preheat(PreheatOf(created->activity_id()));
  EXPECT_TRUE(preheated.ok()) << preheated.status();
  ref.set_activity_id(created->activity_id());
  auto report = operator_proxy.Reconcile(ref);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->invariants_hold()) << report->ShortDebugString();

  // An operator's user token, of the role operator, over the same anonymous channel.
  const CallOptions as_operator = ShippedUserToken("ops-ann", {"operator"});
  auto by_role = anonymous.Reconcile(ref, as_operator);
  ASSERT_TRUE(by_role.ok()) << by_role.status();
  EXPECT_TRUE(by_role->invariants_hold()) << by_role->ShortDebugString();
  EXPECT_TRUE(anonymous.CreateActivity(ActivityRequest({.stock = 1}), as_operator).ok());
}

INSTANTIATE_TEST_SUITE_P(Configs, SeckillShippedConfigTest,
                         ::testing::Values("seckill-server.yaml", "seckill-server-redis.yaml"),
                         [](const auto& info) {
                           return info.param == "seckill-server.yaml" ? std::string("Embedded")
                                                                      : std::string("Redis");
                         });

}  // namespace
}  // namespace ferry::seckill
