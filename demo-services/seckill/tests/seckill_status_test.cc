// GetActivity and GetResult for many pollers, on both backends: statuses served from each
// provider's memory (one read per activity per status.refresh_ms, only while polled, bounded
// however many ids are asked for), the sold-out broadcast between two providers on one Redis,
// and GetResult's decided answers kept in memory.

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ferry/storage/redis_connection_pool.h"
#include "forwarding_order_store.h"
#include "forwarding_reservation_cache.h"
#include "seckill_service_fixture.h"
#include "service/order_writer.h"
#include "service/seckill_service.h"
#include "storage/order_database.h"
#include "storage/redis_reservation_cache.h"
#include "storage/sql_order_store.h"

namespace ferry::seckill {
namespace {

using namespace std::chrono_literals;
using namespace ferry::seckill::testing;

// A provider's core and handlers called directly, over stores that count every call, with a
// clock the test moves forward (from the wall clock, so activity windows stay real).
class StatusCore {
 public:
  using Wrap = std::function<std::unique_ptr<ForwardingOrderStore>(std::unique_ptr<OrderStore>)>;

  void Start(Backend backend, const std::filesystem::path& dir, ActivityStatusOptions status,
             const Wrap& wrap = nullptr) {
    std::unique_ptr<storage::SqlConnectionPool> pool;
    SeckillConfig config;
    if (backend == Backend::kEmbedded) {
      pool = SqliteOrderDatabase((dir / "status.db").string(), 4);
    } else {
      ASSERT_NO_FATAL_FAILURE(SharedServers::Start());
      ASSERT_TRUE(SharedServers::FlushRedis());
      config = RedisMariaDbConfig(FreshDatabaseName("status"));
      pool = MariaDbOrderDatabase(config.mariadb, 4);
    }
    auto real = std::make_unique<SqlOrderStore>(std::move(pool));
    ASSERT_TRUE(real->Initialize().ok());
    store_ = wrap ? wrap(std::move(real)) : std::make_unique<ForwardingOrderStore>(std::move(real));
    SeckillDeps deps;
    deps.store = store_.get();
    if (backend == Backend::kRedisMariaDb) {
      std::unique_ptr<ReservationCache> redis;
      Status s = ConnectRedisReservationCache(
          {.host = config.redis_host, .port = config.redis_port, .timeout_ms = 5000}, &redis);
      ASSERT_TRUE(s.ok()) << s;
      cache_ = std::make_unique<ForwardingReservationCache>(std::move(redis));
      deps.cache = cache_.get();
    }
    deps.next_order_no = [this](int64_t* id) {
      *id = ++next_order_;
      return Status::Ok();
    };
    deps.now_ms = [this] { return WallMs() + offset_ms_.load(); };
    deps.status = status;
    deps.result_cache_entries = 1000;
    core_ = std::make_unique<SeckillCore>(std::move(deps));
    service_ = std::make_unique<SeckillServiceImpl>(core_.get());
  }

  int64_t CreateOpenActivity(int64_t stock) {
    AdmissionContext context;
    CreateActivityResponse created;
    Status s = service_->CreateActivity(context, ActivityRequest({.stock = stock}), &created);
    EXPECT_TRUE(s.ok()) << s;
    PreheatResponse preheated;
    s = service_->Preheat(context, PreheatOf(created.activity_id()), &preheated);
    EXPECT_TRUE(s.ok()) << s;
    return created.activity_id();
  }

  Status Poll(int64_t id, GetActivityResponse* out = nullptr) {
    AdmissionContext context;
    ActivityRef ref;
    ref.set_activity_id(id);
    GetActivityResponse response;
    Status s = service_->GetActivity(context, ref, &response);
    if (out != nullptr) *out = response;
    return s;
  }

  PurchaseAnswer Buy(int64_t id, const std::string& user, const std::string& request) {
    AdmissionContext context;
    context.set_verified_user(user);
    PurchaseResponse response;
    Status s = service_->Purchase(context, Purchase(id, 77, user, request), &response);
    EXPECT_TRUE(s.ok()) << s;
    return response.answer();
  }

  Status Preheat(int64_t id, bool force) {
    AdmissionContext context;
    PreheatResponse preheated;
    return service_->Preheat(context, PreheatOf(id, force), &preheated);
  }

  Status Result(int64_t id, const std::string& user, const std::string& request,
                GetResultResponse* out) {
    AdmissionContext context;
    context.set_verified_user(user);
    GetResultRequest ask;
    ask.set_activity_id(id);
    ask.set_sku_id(77);
    ask.set_request_id(request);
    return service_->GetResult(context, ask, out);
  }

  // Every store and cache call so far.
  int64_t calls() const { return store_->calls() + (cache_ ? cache_->calls() : 0); }
  int64_t store_calls() const { return store_->calls(); }
  void Advance(int64_t ms) { offset_ms_ += ms; }
  SeckillCore& core() { return *core_; }

 private:
  std::unique_ptr<ForwardingOrderStore> store_;
  std::unique_ptr<ForwardingReservationCache> cache_;
  std::unique_ptr<SeckillCore> core_;
  std::unique_ptr<SeckillServiceImpl> service_;
  std::atomic<int64_t> next_order_{1000};
  std::atomic<int64_t> offset_ms_{0};
};

class SeckillStatusTest : public ::testing::TestWithParam<Backend> {
 protected:
  void Start(ActivityStatusOptions status, const StatusCore::Wrap& wrap = nullptr) {
    ASSERT_NO_FATAL_FAILURE(core_.Start(GetParam(), dir_.path(), status, wrap));
  }

  TempDir dir_;
  StatusCore core_;
};

// For what only one backend has (the database's row read, the cache's generations).
class SeckillStatusBackendTest : public ::testing::Test {
 protected:
  void Start(Backend backend, ActivityStatusOptions status,
             const StatusCore::Wrap& wrap = nullptr) {
    ASSERT_NO_FATAL_FAILURE(core_.Start(backend, dir_.path(), status, wrap));
  }

  TempDir dir_;
  StatusCore core_;
};

INSTANTIATE_TEST_SUITE_P(Backends, SeckillStatusTest,
                         ::testing::Values(Backend::kEmbedded, Backend::kRedisMariaDb),
                         [](const ::testing::TestParamInfo<Backend>& info) {
                           return info.param == Backend::kEmbedded ? "embedded" : "redis_mariadb";
                         });

// Pollers from many threads at once: one of them reads the status, the others wait for that
// read (the first time) or take the last one.
TEST_P(SeckillStatusTest, AThousandPollsCostAtMostOneRead) {
  ASSERT_NO_FATAL_FAILURE(Start({.refresh_ms = 600'000}));
  const int64_t id = core_.CreateOpenActivity(7);
  ASSERT_GT(id, 0);
  const int64_t before = core_.calls();
  std::atomic<int> polled{0};
  std::atomic<int> wrong{0};
  std::vector<std::jthread> pollers;
  for (int t = 0; t < 8; ++t) {
    pollers.emplace_back([&] {
      for (int i = 0; i < 125; ++i) {
        GetActivityResponse status;
        if (!core_.Poll(id, &status).ok() || status.remaining() != 7 || status.sold_out() ||
            status.state() != OPEN || status.as_of_ms() <= 0) {
          ++wrong;
        }
        ++polled;
      }
    });
  }
  pollers.clear();
  EXPECT_EQ(polled.load(), 1000);
  EXPECT_EQ(wrong.load(), 0);
  // Embedded: the database's stock; redis+mariadb: the cache's (the activity is in memory).
  EXPECT_LE(core_.calls() - before, 1);
  EXPECT_LE(core_.store_calls() - before, 1);
}

// The real store, except that GetActivity waits, once armed, until the test lets it go.
class HeldReadStore final : public ForwardingOrderStore {
 public:
  using ForwardingOrderStore::ForwardingOrderStore;

  void Arm() {
    std::lock_guard lock(mu_);
    armed_ = true;
  }
  bool WaitHeld() {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, 20s, [&] { return held_; });
  }
  void Let() {
    std::lock_guard lock(mu_);
    armed_ = false;
    cv_.notify_all();
  }
  Status GetActivity(int64_t id, ActivityRecord* out) override {
    std::unique_lock lock(mu_);
    if (armed_) {
      held_ = true;
      cv_.notify_all();
      cv_.wait_for(lock, 20s, [&] { return !armed_; });
    }
    lock.unlock();
    return ForwardingOrderStore::GetActivity(id, out);
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool armed_ = false;
  bool held_ = false;
};

// While one poller's refresh is held in the database, every other poller is answered at once
// with the status it replaces, and none starts a read of its own.
// Embedded: the refresh is the database's row, which the store holds.
TEST_F(SeckillStatusBackendTest, ARefreshUnderWayLeavesOtherPollersTheLastStatus) {
  HeldReadStore* held = nullptr;
  ASSERT_NO_FATAL_FAILURE(
      Start(Backend::kEmbedded, {.refresh_ms = 200}, [&](std::unique_ptr<OrderStore> real) {
        auto store = std::make_unique<HeldReadStore>(std::move(real));
        held = store.get();
        return store;
      }));
  const int64_t id = core_.CreateOpenActivity(5);
  GetActivityResponse first;
  ASSERT_TRUE(core_.Poll(id, &first).ok());
  ASSERT_EQ(core_.Buy(id, "ann", "ann-1"), ACCEPTED);
  core_.Advance(200);
  held->Arm();
  GetActivityResponse refreshed;
  std::jthread reader([&] { ASSERT_TRUE(core_.Poll(id, &refreshed).ok()); });
  ASSERT_TRUE(held->WaitHeld());
  const int64_t reading = core_.calls();
  for (int i = 0; i < 100; ++i) {
    GetActivityResponse last;
    ASSERT_TRUE(core_.Poll(id, &last).ok());
    EXPECT_EQ(last.remaining(), 5);
    EXPECT_EQ(last.as_of_ms(), first.as_of_ms());
  }
  EXPECT_EQ(core_.calls(), reading);
  held->Let();
  reader.join();
  EXPECT_EQ(refreshed.remaining(), 4);
}

// A sold-out signal about a generation a reload replaced does not close the new one; one about
// the current generation does.
// redis+mariadb: generations are the cache's.
TEST_F(SeckillStatusBackendTest, ASoldOutSignalOfAnOlderGenerationIsIgnored) {
  ASSERT_NO_FATAL_FAILURE(Start(Backend::kRedisMariaDb, {.refresh_ms = 600'000}));
  const int64_t id = core_.CreateOpenActivity(5);
  ActivityRecord before;
  ASSERT_TRUE(core_.core().activities.Get(id, &before).ok());
  ASSERT_TRUE(core_.Preheat(id, /*force=*/true).ok());
  ActivityRecord after;
  ASSERT_TRUE(core_.core().activities.Get(id, &after).ok());
  ASSERT_NE(before.cache_epoch, after.cache_epoch);
  GetActivityResponse status;
  ASSERT_TRUE(core_.Poll(id, &status).ok());  // reads the new generation
  ASSERT_FALSE(status.sold_out());
  core_.core().ApplyStockSignal({StockSignal::Kind::kSoldOut, id, 77, before.cache_epoch});
  ASSERT_TRUE(core_.Poll(id, &status).ok());
  EXPECT_FALSE(status.sold_out());
  EXPECT_EQ(status.remaining(), 5);
  EXPECT_EQ(core_.Buy(id, "ann", "ann-1"), ACCEPTED);  // nor the purchase flag
  core_.core().ApplyStockSignal({StockSignal::Kind::kSoldOut, id, 77, after.cache_epoch});
  ASSERT_TRUE(core_.Poll(id, &status).ok());
  EXPECT_TRUE(status.sold_out());
}

TEST(StockSignalTest, OnlyWellFormedMessagesAreSignals) {
  const StockSignal sold{StockSignal::Kind::kSoldOut, 12, 77, -9'000'000'000'000'000'000};
  StockSignal decoded;
  ASSERT_TRUE(DecodeStockSignal(EncodeStockSignal(sold), &decoded));
  EXPECT_EQ(decoded.kind, StockSignal::Kind::kSoldOut);
  EXPECT_EQ(decoded.activity_id, 12);
  EXPECT_EQ(decoded.sku_id, 77);
  EXPECT_EQ(decoded.epoch, sold.epoch);
  ASSERT_TRUE(DecodeStockSignal("reopened 3 4 5", &decoded));
  EXPECT_EQ(decoded.kind, StockSignal::Kind::kReopened);
  for (const char* bad : {"", "sold_out", "sold_out 1 2", "sold_out 1 2 3 4", "closed 1 2 3",
                          "sold_out x 2 3", "sold_out 0 2 3", "reopened 1 2 3x"}) {
    EXPECT_FALSE(DecodeStockSignal(bad, &decoded)) << bad;
  }
}

// Nothing is read for an activity nobody polls, however long it is; a poll after refresh_ms
// reads it once; one nobody polled for idle_ms is dropped.
TEST_P(SeckillStatusTest, OnlyPolledActivitiesAreReadAndIdleOnesAreDropped) {
  ASSERT_NO_FATAL_FAILURE(Start({.refresh_ms = 200, .idle_ms = 10'000}));
  const int64_t first = core_.CreateOpenActivity(3);
  const int64_t second = core_.CreateOpenActivity(3);
  ASSERT_TRUE(core_.Poll(first).ok());
  const int64_t polled = core_.calls();
  core_.Advance(5'000);  // 25 refresh intervals, and no poll
  EXPECT_EQ(core_.calls(), polled);
  ASSERT_TRUE(core_.Poll(first).ok());  // stale: read again, once
  ASSERT_TRUE(core_.Poll(first).ok());
  EXPECT_LE(core_.calls() - polled, 1);
  EXPECT_EQ(core_.core().status.size(), 1u);
  core_.Advance(20'000);
  ASSERT_TRUE(core_.Poll(second).ok());  // makes room: the idle one goes
  EXPECT_EQ(core_.core().status.size(), 1u);
}

// The answer's remaining follows purchases within refresh_ms of the next poll, and a refusal
// for want of stock reads as sold out at once.
TEST_P(SeckillStatusTest, RemainingFollowsPurchasesWithinTheRefresh) {
  ASSERT_NO_FATAL_FAILURE(Start({.refresh_ms = 200}));
  const int64_t id = core_.CreateOpenActivity(3);
  GetActivityResponse status;
  ASSERT_TRUE(core_.Poll(id, &status).ok());
  EXPECT_EQ(status.remaining(), 3);
  ASSERT_EQ(core_.Buy(id, "ann", "ann-1"), ACCEPTED);
  ASSERT_EQ(core_.Buy(id, "bob", "bob-1"), ACCEPTED);
  ASSERT_TRUE(core_.Poll(id, &status).ok());
  EXPECT_EQ(status.remaining(), 3);  // the status read before the purchases, younger than 200 ms
  core_.Advance(200);
  ASSERT_TRUE(core_.Poll(id, &status).ok());
  EXPECT_EQ(status.remaining(), 1);
  EXPECT_FALSE(status.sold_out());
  ASSERT_EQ(core_.Buy(id, "cat", "cat-1"), ACCEPTED);
  ASSERT_EQ(core_.Buy(id, "dan", "dan-1"), SOLD_OUT);
  ASSERT_TRUE(core_.Poll(id, &status).ok());
  EXPECT_TRUE(status.sold_out());  // the refusal's own signal, before any refresh
  EXPECT_EQ(status.remaining(), 0);
  core_.Advance(200);
  ASSERT_TRUE(core_.Poll(id, &status).ok());
  EXPECT_TRUE(status.sold_out());
  EXPECT_EQ(status.remaining(), 0);
}

// Random ids cost no memory and no query above the highest activity id (read at most once per
// refresh_ms); ids of real activities cycled through beyond max_activities are bounded in
// memory and in reads per second.
TEST_P(SeckillStatusTest, RandomUnknownActivitiesDoNotGrowMemoryOrQueries) {
  ASSERT_NO_FATAL_FAILURE(
      Start({.refresh_ms = 600'000, .max_entries = 16, .idle_ms = 600'000, .loads_per_s = 50}));
  std::vector<int64_t> ids;
  for (int i = 0; i < 40; ++i) ids.push_back(core_.CreateOpenActivity(1));
  const int64_t before = core_.calls();
  std::mt19937_64 random(42);
  for (int i = 0; i < 100'000; ++i) {
    const int64_t id = static_cast<int64_t>(random() >> 1);
    if (id <= ids.back()) continue;
    EXPECT_EQ(core_.Poll(id).code(), StatusCode::NOT_FOUND);
  }
  EXPECT_EQ(core_.Poll(-5).code(), StatusCode::NOT_FOUND);
  EXPECT_EQ(core_.Poll(0).code(), StatusCode::NOT_FOUND);
  EXPECT_LE(core_.calls() - before, 1);  // the ceiling, once
  EXPECT_EQ(core_.core().status.size(), 0u);

  const auto started = std::chrono::steady_clock::now();
  const int64_t cycling = core_.calls();
  int unavailable = 0;
  for (int round = 0; round < 100; ++round) {
    for (int64_t id : ids) {
      Status s = core_.Poll(id);
      if (s.code() == StatusCode::UNAVAILABLE) ++unavailable;
      ASSERT_TRUE(s.ok() || s.code() == StatusCode::UNAVAILABLE) << s;
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_LE(core_.core().status.size(), 16u);
  EXPECT_GT(unavailable, 0);
  // At most the bucket (50) plus 50 a second of reads (each one call to the store, or to the
  // cache for an open activity in memory).
  EXPECT_LE(core_.calls() - cycling, 50 + static_cast<int64_t>(50 * seconds) + 1);
}

// A decided request is looked up in the database (or the cache, for a refusal it recorded)
// once; PENDING is asked again.
TEST_P(SeckillStatusTest, GetResultOfADecidedRequestAsksTheStoresOnce) {
  ASSERT_NO_FATAL_FAILURE(Start({}));
  const int64_t id = core_.CreateOpenActivity(1);
  ASSERT_EQ(core_.Buy(id, "amy", "amy-1"), ACCEPTED);
  ASSERT_EQ(core_.Buy(id, "ben", "ben-1"), SOLD_OUT);
  GetResultResponse result;
  if (GetParam() == Backend::kRedisMariaDb) {
    // PENDING until the order writer has written it: never remembered.
    ASSERT_TRUE(core_.Result(id, "amy", "amy-1", &result).ok());
    EXPECT_EQ(result.state(), PENDING);
    const int64_t pending = core_.calls();
    ASSERT_TRUE(core_.Result(id, "amy", "amy-1", &result).ok());
    EXPECT_EQ(result.state(), PENDING);
    EXPECT_GT(core_.calls(), pending);
    OrderWriter writer(&core_.core(), {.consumer = "status-test"});
    ASSERT_TRUE(Eventually([&] {
      writer.Step();
      return core_.Result(id, "amy", "amy-1", &result).ok() && result.state() == CREATED;
    }));
  } else {
    ASSERT_TRUE(core_.Result(id, "amy", "amy-1", &result).ok());
  }
  ASSERT_EQ(result.state(), CREATED);
  const int64_t order_no = result.order_no();
  EXPECT_GT(order_no, 0);
  ASSERT_TRUE(core_.Result(id, "ben", "ben-1", &result).ok());
  EXPECT_EQ(result.state(), FAILED);
  EXPECT_EQ(result.reason(), kReasonSoldOut);

  const int64_t decided = core_.calls();
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(core_.Result(id, "amy", "amy-1", &result).ok());
    EXPECT_EQ(result.state(), CREATED);
    EXPECT_EQ(result.order_no(), order_no);
    ASSERT_TRUE(core_.Result(id, "ben", "ben-1", &result).ok());
    EXPECT_EQ(result.state(), FAILED);
    EXPECT_EQ(result.reason(), kReasonSoldOut);
  }
  EXPECT_EQ(core_.calls(), decided);
  // Another buyer's id is no hit of amy's: it is looked up, and unknown.
  EXPECT_EQ(core_.Result(id, "eve", "amy-1", &result).code(), StatusCode::NOT_FOUND);
}

// --- a provider served over RPC, on the wall clock -------------------------------------------

class SeckillStatusServedTest : public SeckillServiceTest {};

INSTANTIATE_TEST_SUITE_P(Backends, SeckillStatusServedTest,
                         ::testing::Values(Backend::kEmbedded, Backend::kRedisMariaDb),
                         [](const ::testing::TestParamInfo<Backend>& info) {
                           return info.param == Backend::kEmbedded ? "embedded" : "redis_mariadb";
                         });

// What buyers see: each purchase shows in remaining within status.refresh_ms (plus one read and
// the polling's slack) of the first poll after it, and as_of_ms says when it was read.
TEST_P(SeckillStatusServedTest, RemainingFollowsPurchasesWithinTheStalenessBound) {
  config_.status_refresh_ms = 150;
  ASSERT_NO_FATAL_FAILURE(StartProvider());
  const int64_t id = CreateActivity(proxy(), {.stock = 4});
  ASSERT_GT(id, 0);
  for (int64_t left = 3; left >= 0; --left) {
    const std::string user = "buyer-" + std::to_string(left);
    ASSERT_EQ(Buy(id, user, user + "-r"), ACCEPTED);
    const int64_t bought_ms = WallMs();
    GetActivityResponse seen;
    const bool followed = Eventually(
        [&] {
          auto status = proxy().GetActivity(Ref(id));
          if (status.ok()) seen = *status;
          return status.ok() && status->remaining() == left;
        },
        150ms + 850ms, 5ms);
    EXPECT_TRUE(followed) << "left " << left << ", seen " << seen.ShortDebugString();
    EXPECT_GE(seen.as_of_ms(), bought_ms - 5);
    EXPECT_EQ(seen.sold_out(), left == 0);
  }
}

// --- the broadcast: two providers on one Redis and MariaDB -----------------------------------

class SeckillStatusBroadcastTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(SharedServers::Start());
    ASSERT_TRUE(SharedServers::FlushRedis());
    config_ = RedisMariaDbConfig(FreshDatabaseName("broadcast"));
    // Longer than the test unless a test says otherwise: only the broadcast can change what a
    // poll says.
    config_.status_refresh_ms = 600'000;
    config_.sold_out_ttl_ms = 60'000;
  }
  // A and B on one Redis and MariaDB; B listening on `b_channel` (A's by default).
  void StartBoth(const std::string& b_channel = "") {
    config_.worker_id = 1;
    ASSERT_NO_FATAL_FAILURE(a_.Start(config_));
    config_.worker_id = 2;
    if (!b_channel.empty()) config_.status_channel = b_channel;
    ASSERT_NO_FATAL_FAILURE(b_.Start(config_));
  }
  static bool WaitRemaining(InProcessProvider& provider, int64_t id, int64_t remaining,
                            std::chrono::milliseconds within = 5s) {
    return Eventually(
        [&] {
          auto status = provider.proxy().GetActivity(Ref(id));
          return status.ok() && status->remaining() == remaining;
        },
        within, 5ms);
  }
  void TearDown() override {
    a_.Stop();
    b_.Stop();
  }

  static ActivityRef Ref(int64_t id) {
    ActivityRef ref;
    ref.set_activity_id(id);
    return ref;
  }
  // Polls `provider` until its answer's sold_out is `sold_out`, within the broadcast's bound.
  static bool WaitSoldOut(InProcessProvider& provider, int64_t id, bool sold_out) {
    return Eventually(
        [&] {
          auto status = provider.proxy().GetActivity(Ref(id));
          return status.ok() && status->sold_out() == sold_out;
        },
        5s, 5ms);
  }

  SeckillConfig config_;
  InProcessProvider a_;
  InProcessProvider b_;
};

TEST_F(SeckillStatusBroadcastTest, TheLastUnitSoldOnOneProviderIsSoldOutOnTheOtherAndComesBack) {
  ASSERT_NO_FATAL_FAILURE(StartBoth());
  const int64_t id = CreateActivity(a_.proxy(), {.stock = 1});
  ASSERT_GT(id, 0);
  auto first = b_.proxy().GetActivity(Ref(id));
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->remaining(), 1);
  EXPECT_FALSE(first->sold_out());

  auto bought = a_.proxy().Purchase(Purchase(id, 77, "ann", "ann-1"));
  ASSERT_TRUE(bought.ok() && bought->answer() == ACCEPTED) << bought.status();
  // The next buyer at A finds none left, and A tells B.
  auto refused = a_.proxy().Purchase(Purchase(id, 77, "bob", "bob-1"));
  ASSERT_TRUE(refused.ok() && refused->answer() == SOLD_OUT) << refused.status();
  EXPECT_TRUE(WaitSoldOut(b_, id, true));
  auto sold = b_.proxy().GetActivity(Ref(id));
  ASSERT_TRUE(sold.ok());
  EXPECT_EQ(sold->remaining(), 0);
  // B's own buyers are refused from its flag.
  auto at_b = b_.proxy().Purchase(Purchase(id, 77, "cat", "cat-1"));
  ASSERT_TRUE(at_b.ok() && at_b->answer() == SOLD_OUT) << at_b.status();

  // ann cancels at A: the unit goes back to the cache, and A tells B it reopened.
  const int64_t order_no = WaitCreated(a_.proxy(), id, 77, "ann-1");
  ASSERT_GT(order_no, 0);
  CancelOrderRequest cancel;
  cancel.set_order_no(order_no);
  auto cancelled = a_.proxy().CancelOrder(cancel, AsUser("ann"));
  ASSERT_TRUE(cancelled.ok() && cancelled->cancelled()) << cancelled.status();
  EXPECT_TRUE(WaitSoldOut(b_, id, false));
  EXPECT_TRUE(WaitRemaining(b_, id, 1));
  auto again = b_.proxy().Purchase(Purchase(id, 77, "dan", "dan-1"));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->answer(), ACCEPTED);
}

// B never hears A (another channel): its status still shows the sale sold out within
// status.refresh_ms of polling, from its own reads.
TEST_F(SeckillStatusBroadcastTest, AProviderThatMissesTheBroadcastSeesSoldOutWithinTheRefresh) {
  config_.status_refresh_ms = 300;
  ASSERT_NO_FATAL_FAILURE(StartBoth("seckill:elsewhere"));
  const int64_t id = CreateActivity(a_.proxy(), {.stock = 2});
  ASSERT_GT(id, 0);
  EXPECT_TRUE(WaitRemaining(b_, id, 2));
  for (const char* user : {"ann", "bob"}) {
    auto bought = a_.proxy().Purchase(Purchase(id, 77, user, std::string(user) + "-1"));
    ASSERT_TRUE(bought.ok() && bought->answer() == ACCEPTED) << bought.status();
  }
  auto refused = a_.proxy().Purchase(Purchase(id, 77, "cat", "cat-1"));
  ASSERT_TRUE(refused.ok() && refused->answer() == SOLD_OUT) << refused.status();
  // The bound: one refresh interval, plus a read and the polling's own slack.
  const auto sold = std::chrono::steady_clock::now();
  EXPECT_TRUE(WaitSoldOut(b_, id, true));
  EXPECT_LT(std::chrono::steady_clock::now() - sold, 300ms + 700ms);
  auto status = b_.proxy().GetActivity(Ref(id));
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(status->remaining(), 0);
}

// Signals sent while B's subscription was down are lost; B reads every status again once it is
// subscribed again, so what it missed shows at its next poll.
TEST_F(SeckillStatusBroadcastTest, AResubscribedProviderReadsItsStatusesAgain) {
  ASSERT_NO_FATAL_FAILURE(StartBoth());
  const int64_t id = CreateActivity(a_.proxy(), {.stock = 3});
  ASSERT_GT(id, 0);
  EXPECT_TRUE(WaitRemaining(b_, id, 3));
  auto bought = a_.proxy().Purchase(Purchase(id, 77, "ann", "ann-1"));
  ASSERT_TRUE(bought.ok() && bought->answer() == ACCEPTED) << bought.status();
  auto before = b_.proxy().GetActivity(Ref(id));
  ASSERT_TRUE(before.ok());
  EXPECT_EQ(before->remaining(), 3);  // a purchase is no signal, and the refresh is 10 minutes
  auto pool = std::make_unique<storage::RedisConnectionPool>(storage::RedisOptions{
      .host = config_.redis_host, .port = config_.redis_port, .pool_size = 1});
  storage::RedisReplyPtr killed;
  ASSERT_TRUE(pool->Run({"CLIENT", "KILL", "TYPE", "pubsub"}, &killed).ok());
  EXPECT_TRUE(WaitRemaining(b_, id, 2));
}

}  // namespace
}  // namespace ferry::seckill
