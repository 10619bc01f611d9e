// The seckill provider over RPC, on both backends (seckill_service_fixture.h): a retry keeps the
// decision its first attempt got, whether it reaches another provider whose sold-out flag is
// up, one after the end of the sale or one whose copy of the activity predates its preheat, or
// this provider while it is still deciding the first attempt.

#include <gtest/gtest.h>

#include <signal.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "forwarding_order_store.h"
#include "seckill_service_fixture.h"
#include "service/seckill_service.h"
#include "storage/order_database.h"
#include "storage/sql_order_store.h"

namespace ferry::seckill {
namespace {

using namespace std::chrono_literals;
using namespace ferry::seckill::testing;

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
  auto opened = proxy().Preheat(PreheatOf(id));
  ASSERT_TRUE(opened.ok()) << opened.status();
  ASSERT_EQ(Buy(id, "amy", "amy-1"), ACCEPTED);
  EXPECT_EQ(answer_there("amy", "amy-1"), ACCEPTED);
  other.Stop();
}

// --- a retry while the first attempt is still being decided ---------------------------------

// The real SQLite store, with one hook: PlaceOrder of `held_request` returns only when the test
// lets it, so the test can interleave other calls between a decision and its answer.
class HoldingStore final : public ForwardingOrderStore {
 public:
  HoldingStore(std::unique_ptr<OrderStore> real, std::string held_request)
      : ForwardingOrderStore(std::move(real)), held_request_(std::move(held_request)) {}

  void WaitHeld() {
    std::unique_lock lock(mu_);
    ASSERT_TRUE(cv_.wait_for(lock, 10s, [&] { return held_; }));
  }
  void Release() {
    std::lock_guard lock(mu_);
    released_ = true;
    cv_.notify_all();
  }

  Status PlaceOrder(const OrderDraft& draft, PlaceResult* result) override {
    Status s = ForwardingOrderStore::PlaceOrder(draft, result);
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

 private:
  const std::string held_request_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool held_ = false;
  bool released_ = false;
};

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

  AdmissionContext context;
  CreateActivityResponse created;
  ASSERT_TRUE(service.CreateActivity(context, ActivityRequest({.stock = 1}), &created).ok());
  const int64_t id = created.activity_id();
  PreheatResponse preheated;
  ASSERT_TRUE(service.Preheat(context, PreheatOf(id), &preheated).ok());

  auto buy = [&](const std::string& user, const std::string& request) {
    AdmissionContext call;
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

}  // namespace
}  // namespace ferry::seckill
