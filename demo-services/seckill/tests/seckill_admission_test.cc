// The entrance of a sale, on both backends: admission (at most admission.multiple x the units
// on sale admitted at once, the others waiting in arrival order or told it sold out), the
// admission token Purchase then needs, the human check, the blacklist, and back-pressure from
// the order queue's backlog.
#include <gtest/gtest.h>

#include <yaml-cpp/yaml.h>

#include <memory>
#include <string>

#include "ferry/framework/config_reader.h"
#include "seckill_service_fixture.h"
#include "service/seckill_config.h"
#include "service/seckill_metrics.h"

namespace ferry::seckill {
namespace {

using namespace std::chrono_literals;
using namespace ferry::seckill::testing;

constexpr const char* kAdmissionKey = "admission-test-key-0123456789";

// The human check's test double: solved when the answer is "solved:<user>".
class SolvedByName final : public HumanCheck {
 public:
  Status Verify(const HumanCheckAnswer& answer) override {
    if (answer.response == "solved:" + answer.user) return Status::Ok();
    return Status(StatusCode::PERMISSION_DENIED, "human check not solved");
  }
};

// seckill_entrance_total{outcome} as exported.
int64_t Entrance(const std::string& outcome) {
  for (const auto& series : Metrics().entrance->Collect().series) {
    if (series.label_values.at(0) == outcome) return static_cast<int64_t>(series.value);
  }
  return 0;
}

class SeckillAdmissionTest : public SeckillServiceTest {
 protected:
  void StartAdmitting(int64_t multiple = 2) {
    config_.admission.enabled = true;
    config_.admission.multiple = multiple;
    config_.admission.key = kAdmissionKey;
    ASSERT_NO_FATAL_FAILURE(StartProvider());
  }

  AdmitResponse Admit(int64_t id, const std::string& user, const std::string& human = "",
                      int64_t sku_id = 77) {
    AdmitRequest request;
    request.set_activity_id(id);
    request.set_sku_id(sku_id);
    request.set_human_check(human);
    auto r = proxy().Admit(request, AsUser(user));
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : AdmitResponse();
  }

  Result<PurchaseResponse> BuyWith(int64_t id, const std::string& user, const std::string& token,
                                   const std::string& request_id) {
    PurchaseRequest request = Purchase(id, 77, user, request_id);
    request.set_admission_token(token);
    return proxy().Purchase(request);
  }
};

INSTANTIATE_TEST_SUITE_P(Backends, SeckillAdmissionTest,
                         ::testing::Values(Backend::kEmbedded, Backend::kRedisMariaDb),
                         [](const ::testing::TestParamInfo<Backend>& info) {
                           return info.param == Backend::kEmbedded ? "embedded" : "redis_mariadb";
                         });

TEST_P(SeckillAdmissionTest, PurchaseNeedsItsBuyersAdmissionToThatSale) {
  ASSERT_NO_FATAL_FAILURE(StartAdmitting());
  const int64_t id = CreateActivity(proxy(), {.stock = 5});
  const int64_t other = CreateActivity(proxy(), {.stock = 5});
  ASSERT_GT(other, 0);

  auto without = BuyWith(id, "u1", "", "r1");
  EXPECT_EQ(without.status().code(), StatusCode::FAILED_PRECONDITION) << without.status();

  const AdmitResponse admitted = Admit(id, "u1");
  ASSERT_EQ(admitted.answer(), ADMITTED);
  EXPECT_GT(admitted.expires_at_ms(), WallMs());
  const std::string& token = admitted.admission_token();
  for (const auto& [user, activity, why] :
       {std::tuple<std::string, int64_t, const char*>{"u2", id, "another user's"},
        {"u1", other, "another sale's"}}) {
    auto r = BuyWith(activity, user, token, "r-" + user);
    EXPECT_EQ(r.status().code(), StatusCode::PERMISSION_DENIED) << why << ": " << r.status();
  }
  // The last one has its last digit changed (to another digit, whatever it was).
  const std::string changed_last =
      token.substr(0, token.size() - 1) + (token.back() == '0' ? "1" : "0");
  for (const std::string& forged :
       {std::string("garbage"), "9999999999999." + token.substr(14), changed_last}) {
    auto r = BuyWith(id, "u1", forged, "r-forged");
    EXPECT_EQ(r.status().code(), StatusCode::PERMISSION_DENIED) << forged << ": " << r.status();
  }
  auto bought = BuyWith(id, "u1", token, "r1");
  ASSERT_TRUE(bought.ok()) << bought.status();
  EXPECT_EQ(bought->answer(), ACCEPTED);
  EXPECT_EQ(Settle(proxy(), id).orders_unpaid(), 1);
}

TEST_P(SeckillAdmissionTest, AMultipleOfTheStockIsAdmittedAndTheRestWaitInArrivalOrder) {
  config_.admission.token_ttl_ms = 1000;
  ASSERT_NO_FATAL_FAILURE(StartAdmitting(/*multiple=*/2));
  const int64_t id = CreateActivity(proxy(), {.stock = 2});
  const int64_t admitted_before = Entrance("admitted");
  const int64_t waiting_before = Entrance("waiting");
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(Admit(id, "u" + std::to_string(i)).answer(), ADMITTED) << i;
  }
  // Asking again changes nobody's turn.
  EXPECT_EQ(Admit(id, "u0").answer(), ADMITTED);
  for (int round = 0; round < 2; ++round) {
    for (int i = 4; i < 7; ++i) {
      const AdmitResponse waiting = Admit(id, "u" + std::to_string(i));
      EXPECT_EQ(waiting.answer(), ADMISSION_WAIT) << i;
      EXPECT_EQ(waiting.position(), i - 4) << i;
      EXPECT_GT(waiting.retry_after_ms(), 0);
      EXPECT_TRUE(waiting.admission_token().empty());
    }
  }
  EXPECT_EQ(Entrance("admitted") - admitted_before, 5);
  EXPECT_EQ(Entrance("waiting") - waiting_before, 6);
  // The four admissions lapse unused, each token_ttl_ms after it was given: the line moves up,
  // first come first in.
  for (int i = 4; i < 8; ++i) {
    const std::string user = "u" + std::to_string(i);
    ASSERT_TRUE(Eventually([&] { return Admit(id, user).answer() == ADMITTED; }, 10s)) << user;
  }
  EXPECT_EQ(Admit(id, "u8").answer(), ADMISSION_WAIT);
}

TEST_P(SeckillAdmissionTest, ABuyerWhoDecidedMakesRoomForTheNextInLine) {
  ASSERT_NO_FATAL_FAILURE(StartAdmitting(/*multiple=*/1));
  const int64_t id = CreateActivity(proxy(), {.stock = 2});
  const AdmitResponse first = Admit(id, "u0");
  ASSERT_EQ(first.answer(), ADMITTED);
  ASSERT_EQ(Admit(id, "u1").answer(), ADMITTED);
  ASSERT_EQ(Admit(id, "u2").answer(), ADMISSION_WAIT);
  // u0's purchase decides it: its place goes, and so does the unit it took. Once the status
  // says so (within status.refresh_ms), u1 holds the only admission the unit left allows.
  auto bought = BuyWith(id, "u0", first.admission_token(), "r0");
  ASSERT_TRUE(bought.ok()) << bought.status();
  ASSERT_EQ(bought->answer(), ACCEPTED);
  ASSERT_TRUE(Eventually(
      [&] {
        auto status = proxy().GetActivity(Ref(id));
        return status.ok() && status->remaining() == 1;
      },
      10s));
  EXPECT_EQ(Admit(id, "u2").answer(), ADMISSION_WAIT);
  auto second = BuyWith(id, "u1", Admit(id, "u1").admission_token(), "r1");
  ASSERT_TRUE(second.ok()) << second.status();
  ASSERT_EQ(second->answer(), ACCEPTED);
  // Nothing left: the line is told so, without waiting.
  ASSERT_TRUE(Eventually([&] { return Admit(id, "u2").answer() == ADMISSION_SOLD_OUT; }, 10s));
}

TEST_P(SeckillAdmissionTest, AdmissionAnswersUnknownSalesAndTheWindow) {
  ASSERT_NO_FATAL_FAILURE(StartAdmitting());
  const int64_t id = CreateActivity(proxy(), {.stock = 2});
  const int64_t later =
      CreateActivity(proxy(), {.start_offset_ms = 3'600'000, .end_offset_ms = 7'200'000});
  EXPECT_EQ(Admit(id + 1000, "u1").answer(), ADMISSION_NOT_FOUND);
  EXPECT_EQ(Admit(id, "u1", "", /*sku_id=*/78).answer(), ADMISSION_NOT_FOUND);
  EXPECT_EQ(Admit(later, "u1").answer(), ADMISSION_NOT_STARTED);
  AdmitRequest anonymous;
  anonymous.set_activity_id(id);
  anonymous.set_sku_id(77);
  auto r = proxy().Admit(anonymous);
  EXPECT_EQ(r.status().code(), StatusCode::UNAUTHENTICATED) << r.status();
}

TEST_P(SeckillAdmissionTest, TheHumanCheckGuardsAdmission) {
  config_.admission.human_check = std::make_shared<SolvedByName>();
  ASSERT_NO_FATAL_FAILURE(StartAdmitting());
  const int64_t id = CreateActivity(proxy(), {.stock = 2});
  AdmitRequest request;
  request.set_activity_id(id);
  request.set_sku_id(77);
  for (const char* answer : {"", "solved:u2"}) {
    request.set_human_check(answer);
    auto r = proxy().Admit(request, AsUser("u1"));
    EXPECT_EQ(r.status().code(), StatusCode::PERMISSION_DENIED) << answer << ": " << r.status();
  }
  EXPECT_EQ(Admit(id, "u1", "solved:u1").answer(), ADMITTED);
}

TEST_P(SeckillAdmissionTest, ListedBuyersAndAddressesAreRefusedAcrossARestart) {
  ASSERT_NO_FATAL_FAILURE(StartAdmitting());
  const int64_t id = CreateActivity(proxy(), {.stock = 5});
  const std::string token = Admit(id, "u1").admission_token();
  BlacklistRequest add;
  add.add_add_users("u1");
  auto listed = proxy().Blacklist(add);
  ASSERT_TRUE(listed.ok()) << listed.status();
  EXPECT_EQ(listed->users(), 1);
  EXPECT_EQ(listed->addresses(), 0);

  provider_.Stop();
  ASSERT_NO_FATAL_FAILURE(StartProvider());
  auto bought = BuyWith(id, "u1", token, "r1");
  EXPECT_EQ(bought.status().code(), StatusCode::PERMISSION_DENIED) << bought.status();
  AdmitRequest admit;
  admit.set_activity_id(id);
  admit.set_sku_id(77);
  EXPECT_EQ(proxy().Admit(admit, AsUser("u1")).status().code(), StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(Admit(id, "u2").answer(), ADMITTED);

  // The tests' calls come from 127.0.0.1: listing it refuses everybody.
  BlacklistRequest change;
  change.add_remove_users("u1");
  change.add_add_addresses("127.0.0.1");
  listed = proxy().Blacklist(change);
  ASSERT_TRUE(listed.ok()) << listed.status();
  EXPECT_EQ(listed->users(), 0);
  EXPECT_EQ(listed->addresses(), 1);
  EXPECT_EQ(proxy().Admit(admit, AsUser("u3")).status().code(), StatusCode::PERMISSION_DENIED);
  BlacklistRequest clear;
  clear.add_remove_addresses("127.0.0.1");
  ASSERT_TRUE(proxy().Blacklist(clear).ok());
  bought = BuyWith(id, "u1", token, "r1");
  ASSERT_TRUE(bought.ok()) << bought.status();
  EXPECT_EQ(bought->answer(), ACCEPTED);

  BlacklistRequest too_long;
  too_long.add_add_users(std::string(256, 'x'));
  EXPECT_EQ(proxy().Blacklist(too_long).status().code(), StatusCode::INVALID_ARGUMENT);
}

TEST_P(SeckillAdmissionTest, AdmitNeedsAServiceThatAdmits) {
  ASSERT_NO_FATAL_FAILURE(StartProvider());
  const int64_t id = CreateActivity(proxy(), {.stock = 1});
  AdmitRequest request;
  request.set_activity_id(id);
  request.set_sku_id(77);
  EXPECT_EQ(proxy().Admit(request, AsUser("u1")).status().code(), StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(Buy(id, "u1", "r1"), ACCEPTED);  // and purchases need no token
}

// redis+mariadb: orders queue in Redis before they are written. With no writer draining the
// queue, purchases past the bound are refused BUSY with a hint, and reserve nothing. The
// embedded backend writes each order as it accepts it: it has no queue to bound.
TEST_P(SeckillAdmissionTest, PurchasesAreBusyWhileTheOrderQueueIsOverItsBound) {
  config_.writer_threads = 0;
  config_.max_backlog = 2;
  config_.busy_retry_after_ms = 750;
  ASSERT_NO_FATAL_FAILURE(StartProvider());
  const int64_t id = CreateActivity(proxy(), {.stock = 1000});
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(Buy(id, "u" + std::to_string(i), "r" + std::to_string(i)), ACCEPTED);
  }
  if (!cached()) {
    for (int i = 3; i < 10; ++i) {
      EXPECT_EQ(Buy(id, "u" + std::to_string(i), "r" + std::to_string(i)), ACCEPTED);
    }
    EXPECT_EQ(StocksOf(id).first, 990);
    return;
  }
  // The provider reads the backlog with the activity's status, at most status.refresh_ms old:
  // purchases until then are still taken.
  int taken = 0;
  PurchaseResponse busy;
  ASSERT_TRUE(Eventually(
      [&] {
        const std::string late = "late" + std::to_string(taken);
        auto r = proxy().Purchase(Purchase(id, 77, late, "r-" + late));
        if (!r.ok()) return false;
        busy = *r;
        if (r->answer() == ACCEPTED) ++taken;
        return r->answer() == BUSY;
      },
      10s));
  EXPECT_EQ(busy.retry_after_ms(), 750);
  EXPECT_GE(Entrance("busy"), 1);
  EXPECT_EQ(StocksOf(id).second, 1000 - 3 - taken) << "a BUSY purchase reserves nothing";
}

// redis+mariadb: every provider of the service shares one line and honours the others' tokens.
TEST(SeckillAdmissionSharedTest, ProvidersShareTheLineAndEachOthersAdmissions) {
  ASSERT_NO_FATAL_FAILURE(SharedServers::Start());
  ASSERT_TRUE(SharedServers::FlushRedis());
  SeckillConfig config = RedisMariaDbConfig(FreshDatabaseName("admission"));
  config.admission.enabled = true;
  config.admission.multiple = 1;
  config.admission.key = kAdmissionKey;
  InProcessProvider a;
  InProcessProvider b;
  ASSERT_NO_FATAL_FAILURE(a.Start(config));
  config.worker_id = 2;
  ASSERT_NO_FATAL_FAILURE(b.Start(config));
  const int64_t id = CreateActivity(a.proxy(), {.stock = 2});
  AdmitRequest admit;
  admit.set_activity_id(id);
  admit.set_sku_id(77);
  const auto ask = [&](InProcessProvider& provider, const std::string& user) {
    auto r = provider.proxy().Admit(admit, AsUser(user));
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : AdmitResponse();
  };
  const AdmitResponse first = ask(a, "u0");
  ASSERT_EQ(first.answer(), ADMITTED);
  ASSERT_EQ(ask(b, "u1").answer(), ADMITTED);
  const AdmitResponse third = ask(b, "u2");
  EXPECT_EQ(third.answer(), ADMISSION_WAIT);
  EXPECT_EQ(third.position(), 0);
  EXPECT_EQ(ask(a, "u3").position(), 1);
  EXPECT_EQ(ask(a, "u2").position(), 0) << "the same place, asked at the other provider";

  PurchaseRequest purchase = Purchase(id, 77, "u0", "r0");
  purchase.set_admission_token(first.admission_token());
  auto bought = b.proxy().Purchase(purchase);
  ASSERT_TRUE(bought.ok()) << bought.status();
  EXPECT_EQ(bought->answer(), ACCEPTED);
  b.Stop();
  a.Stop();
}

TEST(SeckillAdmissionConfigTest, MistakesNameKeyAndLine) {
  struct Mistake {
    const char* yaml;
    const char* expected;
  };
  const Mistake mistakes[] = {
      {"admission:\n  enabled: true\n", "service.admission.key"},
      {"admission:\n  enabled: true\n  key: short\n", "seckill.yaml:3: service.admission.key"},
      {"admission:\n  multiple: 0\n", "seckill.yaml:2: service.admission.multiple"},
      {"admission:\n  human_check:\n    kind: nobody\n",
       "seckill.yaml:3: service.admission.human_check.kind"},
      {"backpressure:\n  max_backlog: -1\n", "seckill.yaml:2: service.backpressure.max_backlog"},
      {"blacklist:\n  refresh: 5\n", "service.blacklist.refresh"},
  };
  for (const Mistake& m : mistakes) {
    config::ConfigErrors errors("seckill.yaml");
    config::ConfigReader reader(YAML::Load(m.yaml), "service", &errors);
    SeckillConfig config;
    ReadSeckillConfig(reader, &config);
    const Status s = errors.first();
    EXPECT_NE(s.message().find(m.expected), std::string::npos) << m.expected << ": " << s;
  }
}

}  // namespace
}  // namespace ferry::seckill
