// The redis+mariadb backend when things go wrong, against a real Redis and a real MariaDB:
//   - a stream message delivered twice (redelivery, requeue, two consumers at once) makes one
//     order;
//   - Redis restarted empty in the middle of a sale: purchases answer UNAVAILABLE until the
//     activity is preheated again, then the sale goes on, and orders never exceed stock;
//   - the order consumer (a real seckill-server process) SIGKILLed while the stream still holds
//     unread and unacknowledged events, then restarted: every reservation becomes exactly one
//     order.

#include <fcntl.h>
#include <hiredis.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <hiredis.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ferry/storage/mariadb_connection.h"
#include "ferry/storage/redis_connection_pool.h"
#include "seckill_test_support.h"
#include "service/order_closer.h"
#include "service/order_writer.h"
#include "service/reconciler.h"
#include "service/seckill_metrics.h"
#include "service/seckill_service.h"
#include "storage/order_database.h"
#include "storage/redis_reservation_cache.h"
#include "storage/sql_order_store.h"

namespace ferry::seckill {
namespace {

using namespace std::chrono_literals;
using namespace ferry::seckill::testing;

constexpr int64_t kSku = 77;

class SeckillFailureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(SharedServers::Start());
    ASSERT_TRUE(SharedServers::FlushRedis());
    config_ = RedisMariaDbConfig(FreshDatabaseName("failure"));
  }

  // A cache client of the test's own on the providers' Redis, to look at what they queued.
  std::unique_ptr<ReservationCache> ConnectCache() const {
    storage::RedisOptions redis;
    redis.host = config_.redis_host;
    redis.port = config_.redis_port;
    std::unique_ptr<ReservationCache> cache;
    const Status connected = ConnectRedisReservationCache(redis, &cache);
    EXPECT_TRUE(connected.ok()) << connected;
    return cache;
  }

  // A command on the providers' Redis; its integer reply (-1 for any other reply).
  int64_t RedisInt(const std::vector<std::string>& args) const {
    storage::RedisConnectionPool pool({.host = config_.redis_host, .port = config_.redis_port});
    storage::RedisReplyPtr reply;
    Status s = pool.Run(args, &reply);
    EXPECT_TRUE(s.ok()) << s;
    return s.ok() && reply->type == REDIS_REPLY_INTEGER ? reply->integer : -1;
  }
  // The reply as text; an array's elements joined by ','.
  std::string RedisText(const std::vector<std::string>& args) const {
    storage::RedisConnectionPool pool({.host = config_.redis_host, .port = config_.redis_port});
    storage::RedisReplyPtr reply;
    Status s = pool.Run(args, &reply);
    EXPECT_TRUE(s.ok()) << s;
    return s.ok() ? Flatten(reply.get()) : "";
  }
  static std::string Flatten(const redisReply* reply) {
    if (reply->type != REDIS_REPLY_ARRAY) return std::string(storage::ReplyText(reply));
    std::string joined;
    for (size_t i = 0; i < reply->elements; ++i) {
      joined += (i > 0 ? "," : "") + Flatten(reply->element[i]);
    }
    return joined;
  }

  SeckillConfig config_;
};

std::string ActivityKey(int64_t activity_id, const std::string& name) {
  return "seckill:{" + std::to_string(activity_id) + ":" + std::to_string(kSku) + "}:" + name;
}

// --- a message delivered twice ---------------------------------------------------------------

// The pieces of a provider without its background jobs, so the test decides when and how often
// the order writer sees an event.
class HandBuiltProvider {
 public:
  explicit HandBuiltProvider(const SeckillConfig& config, int64_t redrive_after_ms = 10'000,
                             const std::string& provider_id = "hand-built",
                             int64_t redrive_batch = 100) {
    store_ = std::make_unique<SqlOrderStore>(MariaDbOrderDatabase(config.mariadb, 8));
    Status s = store_->Initialize();
    EXPECT_TRUE(s.ok()) << s;
    storage::RedisOptions redis;
    redis.host = config.redis_host;
    redis.port = config.redis_port;
    redis.timeout_ms = 5000;
    s = ConnectRedisReservationCache(redis, &cache_);
    EXPECT_TRUE(s.ok()) << s;
    SeckillDeps deps;
    deps.store = store_.get();
    deps.cache = cache_.get();
    deps.next_order_no = [this](int64_t* id) {
      *id = repeat_order_no_.exchange(false) ? next_order_.load() : ++next_order_;
      return Status::Ok();
    };
    deps.now_ms = [] { return WallMs(); };
    deps.redrive_after_ms = redrive_after_ms;
    deps.redrive_batch = redrive_batch;
    deps.provider_id = provider_id;
    core_ = std::make_unique<SeckillCore>(std::move(deps));
    service_ = std::make_unique<SeckillServiceImpl>(core_.get());
  }

  int64_t CreateOpenActivity(int64_t stock) {
    ServerContext context;
    CreateActivityResponse created;
    Status s = service_->CreateActivity(context, ActivityRequest({.stock = stock}), &created);
    EXPECT_TRUE(s.ok()) << s;
    ActivityRef ref;
    ref.set_activity_id(created.activity_id());
    PreheatResponse preheated;
    s = service_->Preheat(context, ref, &preheated);
    EXPECT_TRUE(s.ok()) << s;
    return created.activity_id();
  }

  PurchaseAnswer Buy(int64_t activity_id, const std::string& user) {
    return Buy(activity_id, user, user + "-r");
  }
  PurchaseAnswer Buy(int64_t activity_id, const std::string& user, const std::string& request) {
    PurchaseAnswer answer = SOLD_OUT;
    Status s = TryBuy(activity_id, user, request, &answer);
    EXPECT_TRUE(s.ok()) << s;
    return answer;
  }
  Status TryBuy(int64_t activity_id, const std::string& user, const std::string& request,
                PurchaseAnswer* answer) {
    ServerContext context;
    context.set_verified_user(user);
    PurchaseResponse response;
    Status s = service_->Purchase(context, Purchase(activity_id, kSku, user, request), &response);
    *answer = response.answer();
    return s;
  }

  ActivityRecord Activity(int64_t id) {
    ActivityRecord a;
    Status s = store_->GetActivity(id, &a);
    EXPECT_TRUE(s.ok()) << s;
    return a;
  }

  ReconcileResponse Reconcile(int64_t id) {
    ReconcileResponse report;
    Status s = ReconcileActivity(*core_, id, &report);
    EXPECT_TRUE(s.ok()) << s;
    return report;
  }

  PreheatResponse Preheat(int64_t id) {
    ServerContext context;
    ActivityRef ref;
    ref.set_activity_id(id);
    PreheatResponse response;
    Status s = service_->Preheat(context, ref, &response);
    EXPECT_TRUE(s.ok()) << s;
    return response;
  }

  // As the order's buyer.
  CancelOrderResponse Cancel(int64_t order_no) {
    OrderRecord order;
    EXPECT_TRUE(store_->GetOrder(order_no, &order).ok());
    ServerContext context;
    context.set_verified_user(order.user_id);
    CancelOrderRequest request;
    request.set_order_no(order_no);
    CancelOrderResponse response;
    Status s = service_->CancelOrder(context, request, &response);
    EXPECT_TRUE(s.ok()) << s;
    return response;
  }

  GetResultResponse Result(int64_t activity_id, const std::string& user,
                           const std::string& request) {
    ServerContext context;
    context.set_verified_user(user);
    GetResultRequest lookup;
    lookup.set_request_id(request);
    lookup.set_activity_id(activity_id);
    lookup.set_sku_id(kSku);
    lookup.set_user_id(user);
    GetResultResponse response;
    Status s = service_->GetResult(context, lookup, &response);
    EXPECT_TRUE(s.ok()) << s;
    return response;
  }

  // The next purchase gets the previous one's order number again (an id generator that repeated
  // itself): its order can never be inserted.
  void RepeatNextOrderNo() { repeat_order_no_ = true; }

  OrderStore& store() { return *store_; }
  ReservationCache& cache() { return *cache_; }
  SeckillCore* core() { return core_.get(); }

 private:
  std::atomic<int64_t> next_order_{5'000'000};
  std::atomic<bool> repeat_order_no_{false};
  std::unique_ptr<OrderStore> store_;
  std::unique_ptr<ReservationCache> cache_;
  std::unique_ptr<SeckillCore> core_;
  std::unique_ptr<SeckillServiceImpl> service_;
};

TEST_F(SeckillFailureTest, AMessageDeliveredTwiceMakesOneOrder) {
  HandBuiltProvider provider(config_);
  const int64_t id = provider.CreateOpenActivity(10);
  ASSERT_GT(id, 0);
  constexpr int kBuyers = 6;
  for (int i = 0; i < kBuyers; ++i) {
    ASSERT_EQ(provider.Buy(id, "d" + std::to_string(i)), ACCEPTED);
  }
  const ActivityRecord activity = provider.Activity(id);

  // A consumer takes every event and dies before acknowledging any.
  std::vector<ReservationEvent> delivered;
  ASSERT_TRUE(provider.cache().ReadEvents(id, kSku, "doomed", 100, &delivered).ok());
  ASSERT_EQ(delivered.size(), static_cast<size_t>(kBuyers));

  // Its writes got through, some of them twice (a retry after a lost reply).
  OrderWriter writer(provider.core(), {.consumer = "survivor", .batch = 4, .claim_idle_ms = 100});
  for (const ReservationEvent& event : delivered) {
    EXPECT_TRUE(writer.Write(activity, event));
    EXPECT_TRUE(writer.Write(activity, event));
  }
  StoreCounts counts;
  ASSERT_TRUE(provider.store().Count(id, kSku, &counts).ok());
  EXPECT_EQ(counts.orders_unpaid, kBuyers);
  EXPECT_EQ(counts.remaining_stock, 10 - kBuyers);

  // The survivor claims the same events once they are idle and writes them a third time.
  std::this_thread::sleep_for(150ms);
  EXPECT_TRUE(Eventually([&] {
    writer.Step();
    CacheSnapshot snapshot;
    return provider.cache().Snapshot(id, kSku, &snapshot).ok() && snapshot.queue_pending == 0;
  }));
  // And a re-driven copy of every reservation comes through, to two writers at once.
  std::vector<ReservationEvent> reservations;
  ASSERT_TRUE(provider.cache().ListReservations(id, kSku, &reservations).ok());
  ASSERT_EQ(reservations.size(), static_cast<size_t>(kBuyers));
  for (const ReservationEvent& r : reservations) {
    ASSERT_TRUE(provider.cache().Requeue(r).ok());
    ASSERT_TRUE(provider.cache().Requeue(r).ok());
  }
  OrderWriter other(provider.core(), {.consumer = "other", .batch = 1, .claim_idle_ms = 100});
  std::thread a([&] {
    for (int i = 0; i < 50 && writer.Step(); ++i) {
    }
  });
  std::thread b([&] {
    for (int i = 0; i < 50 && other.Step(); ++i) {
    }
  });
  a.join();
  b.join();
  // The same event written by two threads at the same moment.
  for (const ReservationEvent& event : delivered) {
    std::thread x([&] { EXPECT_TRUE(writer.Write(activity, event)); });
    std::thread y([&] { EXPECT_TRUE(other.Write(activity, event)); });
    x.join();
    y.join();
  }

  ASSERT_TRUE(provider.store().Count(id, kSku, &counts).ok());
  EXPECT_EQ(counts.orders_unpaid, kBuyers);
  EXPECT_EQ(counts.remaining_stock, 10 - kBuyers);
  EXPECT_EQ(counts.users_with_two_orders, 0);
  EXPECT_EQ(counts.requests_created, kBuyers);
  for (const ReservationEvent& r : reservations) {
    RequestRecord decided;
    ASSERT_TRUE(provider.store().GetRequest({.request_id = r.request_id}, &decided).ok());
    EXPECT_TRUE(decided.created);
    EXPECT_EQ(decided.order_no, r.order_no);
  }
  const ReconcileResponse report = provider.Reconcile(id);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.reservations(), kBuyers);
  EXPECT_EQ(report.reservations_without_order(), 0);
  EXPECT_EQ(report.database_stock(), 10 - kBuyers);
  EXPECT_EQ(report.cache_stock(), 10 - kBuyers);
}

// The order writer lagged behind the reservations by more than the pay timeout (600 s): the
// order it writes now is given the whole timeout from now, when it is created and the buyer can
// learn of it, and the closer leaves it open.
TEST_F(SeckillFailureTest, AnOrderWrittenLateGetsItsWholePayTimeout) {
  HandBuiltProvider provider(config_);
  const int64_t id = provider.CreateOpenActivity(3);
  ASSERT_GT(id, 0);
  ASSERT_EQ(provider.Buy(id, "late"), ACCEPTED);
  const ActivityRecord activity = provider.Activity(id);
  std::vector<ReservationEvent> delivered;
  ASSERT_TRUE(provider.cache().ReadEvents(id, kSku, "lagging", 10, &delivered).ok());
  ASSERT_EQ(delivered.size(), 1u);
  ReservationEvent event = delivered[0];
  const int64_t timeout_ms = int64_t{activity.pay_timeout_s} * 1000;
  event.reserved_ms -= 2 * timeout_ms;  // as if reserved 20 minutes ago

  OrderWriter writer(provider.core(), {.consumer = "lagging"});
  const int64_t written_after = WallMs();
  ASSERT_TRUE(writer.Write(activity, event));
  OrderRecord order;
  ASSERT_TRUE(provider.store().GetOrder(event.order_no, &order).ok());
  EXPECT_GE(order.created_ms, written_after);
  EXPECT_GE(order.pay_deadline_ms, written_after + timeout_ms);

  while (CloseExpiredOrders(*provider.core(), 100)) {
  }
  ASSERT_TRUE(provider.store().GetOrder(event.order_no, &order).ok());
  EXPECT_EQ(order.state, OrderState::kUnpaid);
}

TEST_F(SeckillFailureTest, TheQueueBacklogAndTheOrdersWrittenAreCounted) {
  HandBuiltProvider provider(config_);
  const int64_t id = provider.CreateOpenActivity(10);
  ASSERT_GT(id, 0);
  constexpr int kBuyers = 5;
  for (int i = 0; i < kBuyers; ++i) {
    ASSERT_EQ(provider.Buy(id, "m" + std::to_string(i)), ACCEPTED);
  }
  EXPECT_EQ(provider.Reconcile(id).queue_backlog(), kBuyers);
  // Delivered and unacknowledged is still backlog.
  std::vector<ReservationEvent> delivered;
  ASSERT_TRUE(provider.cache().ReadEvents(id, kSku, "slow", 2, &delivered).ok());
  ASSERT_EQ(delivered.size(), 2u);
  EXPECT_EQ(provider.Reconcile(id).queue_backlog(), kBuyers);

  const SeckillMetrics& metrics = Metrics();
  const uint64_t created_before = metrics.orders_created->Value();
  OrderWriter writer(provider.core(), {.consumer = "counted", .batch = 8, .claim_idle_ms = 1});
  EXPECT_TRUE(Eventually([&] {
    writer.Step();
    return provider.Reconcile(id).queue_backlog() == 0;
  }));
  EXPECT_EQ(metrics.orders_created->Value() - created_before, static_cast<uint64_t>(kBuyers));
}

// --- a reservation whose event never reached the writer --------------------------------------

TEST_F(SeckillFailureTest, AReservationWhoseEventWasLostIsRedriven) {
  HandBuiltProvider provider(config_, /*redrive_after_ms=*/300);
  const int64_t id = provider.CreateOpenActivity(5);
  ASSERT_GT(id, 0);
  ASSERT_EQ(provider.Buy(id, "r0"), ACCEPTED);
  ASSERT_EQ(provider.Buy(id, "r1"), ACCEPTED);
  // The stream loses its entries (trimmed by an operator): the reservations remain.
  std::vector<ReservationEvent> events;
  ASSERT_TRUE(provider.cache().ReadEvents(id, kSku, "lost", 10, &events).ok());
  ASSERT_EQ(events.size(), 2u);
  ASSERT_TRUE(provider.cache().Ack(id, kSku, {events[0].event_id, events[1].event_id}).ok());

  // Too young to re-drive: reported, not re-queued.
  ReconcileResponse report = provider.Reconcile(id);
  EXPECT_EQ(report.reservations(), 2);
  EXPECT_EQ(report.reservations_without_order(), 2);
  EXPECT_EQ(report.redriven(), 0);
  std::this_thread::sleep_for(400ms);
  report = provider.Reconcile(id);
  EXPECT_EQ(report.reservations_without_order(), 2);
  EXPECT_EQ(report.redriven(), 2);

  OrderWriter writer(provider.core(), {.consumer = "w", .batch = 8, .claim_idle_ms = 1000});
  EXPECT_TRUE(Eventually([&] {
    writer.Step();
    return provider.Reconcile(id).reservations_without_order() == 0;
  }));
  // A second re-drive of the same reservations writes nothing more.
  report = provider.Reconcile(id);
  EXPECT_EQ(report.redriven(), 0);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.orders_unpaid(), 2);
  EXPECT_EQ(report.database_stock(), 3);
  EXPECT_EQ(report.cache_stock(), 3);
}

// --- a release still pending when Redis comes back empty -------------------------------------

TEST_F(SeckillFailureTest, AReleasePendingAcrossARedisLossIsNotCountedTwice) {
  HandBuiltProvider provider(config_);
  const int64_t id = provider.CreateOpenActivity(2);
  ASSERT_GT(id, 0);
  ASSERT_EQ(provider.Buy(id, "p0"), ACCEPTED);
  OrderWriter writer(provider.core(), {.consumer = "w", .batch = 8, .claim_idle_ms = 1000});
  ASSERT_TRUE(Eventually([&] {
    writer.Step();
    return provider.Reconcile(id).orders_unpaid() == 1;
  }));
  RequestRecord decided;
  ASSERT_TRUE(provider.store().GetRequest({.request_id = "p0-r"}, &decided).ok());

  // Redis is down when the order is cancelled: the database takes the unit back, the cache's
  // share stays queued.
  SharedServers::redis().Kill();
  const CancelOrderResponse cancelled = provider.Cancel(decided.order_no);
  EXPECT_TRUE(cancelled.cancelled());
  std::vector<PendingCacheRelease> pending;
  ASSERT_TRUE(provider.store().ListPendingCacheReleases(10, &pending).ok());
  ASSERT_EQ(pending.size(), 1u);

  // Redis comes back empty and the activity is preheated from the database, whose stock
  // already counts the cancelled unit; then the queued release is published.
  ASSERT_TRUE(SharedServers::redis().RestartEmpty());
  const PreheatResponse reopened = provider.Preheat(id);
  EXPECT_FALSE(reopened.already_open());
  EXPECT_EQ(reopened.cached_stock(), 2);
  CloseExpiredOrders(*provider.core());
  pending.clear();
  ASSERT_TRUE(provider.store().ListPendingCacheReleases(10, &pending).ok());
  EXPECT_TRUE(pending.empty());

  const ReconcileResponse report = provider.Reconcile(id);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.database_stock(), 2);
  EXPECT_EQ(report.cache_stock(), 2);
  // The cancelled buyer stays out; two units, two buyers, no more.
  EXPECT_EQ(provider.Buy(id, "p0", "p0-again"), ALREADY_JOINED);
  EXPECT_EQ(provider.Buy(id, "p1"), ACCEPTED);
  EXPECT_EQ(provider.Buy(id, "p2"), ACCEPTED);
  EXPECT_EQ(provider.Buy(id, "p3"), SOLD_OUT);
}

// --- the cache's generation ----------------------------------------------------------------

// One command on the shared Redis, bypassing the cache (to damage what it holds).
std::string RawRedis(const std::vector<std::string>& args) {
  const timeval timeout{.tv_sec = 5, .tv_usec = 0};
  redisContext* c = redisConnectWithTimeout(SharedServers::redis().host().c_str(),
                                            SharedServers::redis().port(), timeout);
  EXPECT_TRUE(c != nullptr && c->err == 0);
  if (c == nullptr || c->err != 0) {
    if (c != nullptr) redisFree(c);
    return "";
  }
  std::vector<const char*> argv;
  std::vector<size_t> lengths;
  for (const std::string& a : args) {
    argv.push_back(a.data());
    lengths.push_back(a.size());
  }
  auto* reply = static_cast<redisReply*>(
      redisCommandArgv(c, static_cast<int>(args.size()), argv.data(), lengths.data()));
  std::string text;
  if (reply != nullptr && reply->type == REDIS_REPLY_INTEGER) text = std::to_string(reply->integer);
  if (reply != nullptr && reply->str != nullptr) text = std::string(reply->str, reply->len);
  if (reply != nullptr) freeReplyObject(reply);
  redisFree(c);
  return text;
}

std::string StockKey(int64_t activity_id) {
  return "seckill:{" + std::to_string(activity_id) + ":" + std::to_string(kSku) + "}:stock";
}

// Orders written by `writer` until the database holds `count` live ones.
::testing::AssertionResult WrittenUntil(HandBuiltProvider& provider, OrderWriter& writer,
                                        int64_t id, int64_t count) {
  const bool written = Eventually([&] {
    writer.Step();
    const ReconcileResponse r = provider.Reconcile(id);
    return r.orders_unpaid() + r.orders_paid() == count && r.reservations_without_order() == 0;
  });
  if (written) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "not " << count << " orders: " << provider.Reconcile(id).ShortDebugString();
}

TEST_F(SeckillFailureTest, RedisRestoredFromAnOlderCopyIsClosedUntilPreheated) {
  HandBuiltProvider provider(config_);
  const int64_t id = provider.CreateOpenActivity(6);
  ASSERT_GT(id, 0);
  OrderWriter writer(provider.core(), {.consumer = "w", .batch = 16, .claim_idle_ms = 1000});
  ASSERT_EQ(provider.Buy(id, "a0"), ACCEPTED);
  ASSERT_EQ(provider.Buy(id, "a1"), ACCEPTED);
  ASSERT_TRUE(WrittenUntil(provider, writer, id, 2));

  // A copy of Redis's data now (stopped cleanly, so its append-only file is complete)...
  testsupport::RedisServer& redis = SharedServers::redis();
  const std::filesystem::path copy = redis.dir() / "older-copy";
  redis.Stop();
  std::filesystem::remove_all(copy);
  std::filesystem::copy(redis.data_dir(), copy, std::filesystem::copy_options::recursive);
  ASSERT_TRUE(redis.Start());
  // ...two more sales written...
  ASSERT_EQ(provider.Buy(id, "a2"), ACCEPTED);
  ASSERT_EQ(provider.Buy(id, "a3"), ACCEPTED);
  ASSERT_TRUE(WrittenUntil(provider, writer, id, 4));
  // ...and Redis restored from the copy: its loaded marker and generation are intact, its stock
  // says 4 and it knows neither a2 nor a3.
  redis.Stop();
  std::filesystem::remove_all(redis.data_dir());
  std::filesystem::copy(copy, redis.data_dir(), std::filesystem::copy_options::recursive);
  ASSERT_TRUE(redis.Start());
  ASSERT_EQ(RawRedis({"GET", StockKey(id)}), "4");

  const ReconcileResponse found = provider.Reconcile(id);
  EXPECT_FALSE(found.invariants_hold());
  ASSERT_GE(found.violations_size(), 1);
  EXPECT_NE(found.violations(0).find("lost reservations"), std::string::npos)
      << found.ShortDebugString();
  EXPECT_EQ(found.cache_stock(), -1);
  // Closed: new buyers and the buyers the copy forgot alike.
  for (const char* user : {"n0", "a2", "n1"}) {
    PurchaseAnswer answer = SOLD_OUT;
    const Status s = provider.TryBuy(id, user, std::string(user) + "-closed", &answer);
    EXPECT_EQ(s.code(), StatusCode::UNAVAILABLE) << user << ": " << PurchaseAnswer_Name(answer);
    EXPECT_NE(s.message().find("preheat"), std::string::npos) << s;
  }
  EXPECT_FALSE(provider.Reconcile(id).invariants_hold());

  // Preheated again: the database's two units, and the buyers it knows stay refused.
  const PreheatResponse reopened = provider.Preheat(id);
  EXPECT_FALSE(reopened.already_open());
  EXPECT_EQ(reopened.cached_stock(), 2);
  EXPECT_TRUE(provider.Preheat(id).already_open());
  EXPECT_EQ(provider.Buy(id, "a2", "a2-again"), ALREADY_JOINED);
  EXPECT_EQ(provider.Buy(id, "n0", "n0-closed"), ACCEPTED);
  EXPECT_EQ(provider.Buy(id, "n1"), ACCEPTED);
  EXPECT_EQ(provider.Buy(id, "n2"), SOLD_OUT);
  ASSERT_TRUE(WrittenUntil(provider, writer, id, 6));
  const ReconcileResponse report = provider.Reconcile(id);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.database_stock(), 0);
  EXPECT_EQ(report.cache_stock(), 0);
  EXPECT_EQ(report.cache_difference(), 0);
}

TEST_F(SeckillFailureTest, AReloadLeavesOutTheUnitsOfReservationsStillToBeWritten) {
  HandBuiltProvider provider(config_);
  const int64_t id = provider.CreateOpenActivity(5);
  ASSERT_GT(id, 0);
  // Accepted, not written yet: the database still counts their units as unsold.
  ASSERT_EQ(provider.Buy(id, "q0"), ACCEPTED);
  ASSERT_EQ(provider.Buy(id, "q1"), ACCEPTED);
  bool marked = false;
  ASSERT_TRUE(
      provider.cache().MarkStale(id, kSku, provider.Activity(id).cache_epoch, &marked).ok());
  ASSERT_TRUE(marked);
  PurchaseAnswer answer = SOLD_OUT;
  EXPECT_EQ(provider.TryBuy(id, "q2", "q2-r", &answer).code(), StatusCode::UNAVAILABLE);

  // The new generation gets 5 - 2: the two queued reservations take theirs when written.
  const PreheatResponse reopened = provider.Preheat(id);
  EXPECT_FALSE(reopened.already_open());
  EXPECT_EQ(reopened.cached_stock(), 3);
  EXPECT_EQ(provider.Reconcile(id).cache_difference(), 0);
  EXPECT_EQ(provider.Buy(id, "q0", "q0-again"), ALREADY_JOINED);
  EXPECT_EQ(provider.Buy(id, "q0"), ACCEPTED);  // its request replays
  OrderWriter writer(provider.core(), {.consumer = "w", .batch = 16, .claim_idle_ms = 1000});
  ASSERT_TRUE(WrittenUntil(provider, writer, id, 2));
  for (const char* user : {"q2", "q3", "q4"}) EXPECT_EQ(provider.Buy(id, user), ACCEPTED);
  EXPECT_EQ(provider.Buy(id, "q5"), SOLD_OUT);
  ASSERT_TRUE(WrittenUntil(provider, writer, id, 5));
  const ReconcileResponse report = provider.Reconcile(id);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.database_stock(), 0);
  EXPECT_EQ(report.cache_stock(), 0);
}

TEST_F(SeckillFailureTest, AReusedActivityIdDoesNotInheritTheOldKeys) {
  int64_t old_id = 0;
  {
    HandBuiltProvider old(config_);
    old_id = old.CreateOpenActivity(3);
    ASSERT_GT(old_id, 0);
    // Reserved and never written: their events stay on the old queue.
    ASSERT_EQ(old.Buy(old_id, "u0"), ACCEPTED);
    ASSERT_EQ(old.Buy(old_id, "u1"), ACCEPTED);
  }
  // A new database: its first activity gets the same id, and finds the old keys in Redis.
  SeckillConfig fresh_config = config_;
  fresh_config.mariadb.database = FreshDatabaseName("reused");
  HandBuiltProvider provider(fresh_config);
  const int64_t id = provider.CreateOpenActivity(5);
  ASSERT_EQ(id, old_id);

  const ReconcileResponse loaded = provider.Reconcile(id);
  EXPECT_EQ(loaded.cache_stock(), 5) << loaded.ShortDebugString();
  EXPECT_EQ(loaded.reservations(), 0);
  // u0 buys anew: neither replayed from the old answers nor refused as an old buyer.
  EXPECT_EQ(provider.Buy(id, "u0"), ACCEPTED);
  OrderWriter writer(provider.core(), {.consumer = "w", .batch = 16, .claim_idle_ms = 1});
  ASSERT_TRUE(WrittenUntil(provider, writer, id, 1));
  for (int i = 0; i < 5; ++i) writer.Step();
  const ReconcileResponse report = provider.Reconcile(id);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.orders_unpaid(), 1);  // the old queue's u1 made no order here
  EXPECT_EQ(report.database_stock(), 4);
  EXPECT_EQ(report.cache_stock(), 4);
}

TEST_F(SeckillFailureTest, ACancellationCountedInAReloadIsNotReleasedIntoIt) {
  HandBuiltProvider provider(config_);
  const int64_t id = provider.CreateOpenActivity(3);
  ASSERT_GT(id, 0);
  ASSERT_EQ(provider.Buy(id, "c0"), ACCEPTED);
  ASSERT_EQ(provider.Buy(id, "c1"), ACCEPTED);
  OrderWriter writer(provider.core(), {.consumer = "w", .batch = 16, .claim_idle_ms = 1000});
  ASSERT_TRUE(WrittenUntil(provider, writer, id, 2));
  RequestRecord c0;
  ASSERT_TRUE(provider.store().GetRequest({.request_id = "c0-r"}, &c0).ok());

  // The cancellation commits (the database's stock is 2 again), then a preheat reloads the lost
  // cache from that stock, and only then does the cancellation's release reach the cache.
  ASSERT_TRUE(SharedServers::redis().RestartEmpty());
  CancelResult cancelled;
  ASSERT_TRUE(provider.store().CancelUnpaid(c0.order_no, &cancelled).ok());
  ASSERT_TRUE(cancelled.cancelled);
  EXPECT_EQ(provider.Preheat(id).cached_stock(), 2);
  const Status published = provider.core()->PublishRelease(
      {c0.order_no, id, kSku, cancelled.cache_epoch, cancelled.cache_epoch});
  ASSERT_TRUE(published.ok()) << published;
  EXPECT_EQ(provider.Reconcile(id).cache_stock(), 2);
  CloseExpiredOrders(*provider.core());
  std::vector<PendingCacheRelease> pending;
  ASSERT_TRUE(provider.store().ListPendingCacheReleases(10, &pending).ok());
  EXPECT_TRUE(pending.empty());

  // Refused as "not loaded" (Redis lost again), a release waits, and is not counted twice.
  RequestRecord c1;
  ASSERT_TRUE(provider.store().GetRequest({.request_id = "c1-r"}, &c1).ok());
  ASSERT_TRUE(SharedServers::redis().RestartEmpty());
  EXPECT_TRUE(provider.Cancel(c1.order_no).cancelled());
  EXPECT_EQ(provider.Preheat(id).cached_stock(), 3);
  CloseExpiredOrders(*provider.core());
  const ReconcileResponse report = provider.Reconcile(id);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.database_stock(), 3);
  EXPECT_EQ(report.cache_stock(), 3);
  EXPECT_EQ(report.releases_pending(), 0);
}

TEST_F(SeckillFailureTest, ACancellationCommittingDuringAPreheatReachesTheNewGeneration) {
  HandBuiltProvider provider(config_);
  const int64_t id = provider.CreateOpenActivity(3);
  ASSERT_GT(id, 0);
  ASSERT_EQ(provider.Buy(id, "c0"), ACCEPTED);
  OrderWriter writer(provider.core(), {.consumer = "w", .batch = 16, .claim_idle_ms = 1000});
  ASSERT_TRUE(WrittenUntil(provider, writer, id, 1));
  RequestRecord c0;
  ASSERT_TRUE(provider.store().GetRequest({.request_id = "c0-r"}, &c0).ok());
  const ActivityRecord before = provider.Activity(id);

  // A preheat's steps, with the cancellation committing between its database transaction
  // (stock 2, the new generation recorded) and its load of the cache.
  constexpr int64_t kNext = 0x5eed;
  CacheEpochBase base;
  ASSERT_TRUE(provider.store().BeginCacheEpoch(id, kSku, kNext, {}, &base).ok());
  EXPECT_EQ(base.remaining_stock, 2);
  EXPECT_TRUE(provider.Cancel(c0.order_no).cancelled());
  // The cache still holds the old generation: the release is not given to it, it waits.
  EXPECT_EQ(provider.Reconcile(id).releases_pending(), 1);
  bool raced = true;
  ASSERT_TRUE(provider.cache()
                  .Preheat({.activity_id = id,
                            .sku_id = kSku,
                            .epoch = kNext,
                            .expected_marker = std::to_string(before.cache_epoch),
                            .keep_requests = true,
                            .stock = base.remaining_stock,
                            .buyers = {"c0"}},
                           &raced)
                  .ok());
  ASSERT_FALSE(raced);
  EXPECT_EQ(provider.Reconcile(id).cache_difference(), 0);  // the pending release balances it
  CloseExpiredOrders(*provider.core());
  const ReconcileResponse report = provider.Reconcile(id);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.releases_pending(), 0);
  EXPECT_EQ(report.database_stock(), 3);
  EXPECT_EQ(report.cache_stock(), 3);
}

TEST_F(SeckillFailureTest, ReconcileReportsWhereTheCacheAndTheDatabaseDisagree) {
  HandBuiltProvider provider(config_);
  const int64_t id = provider.CreateOpenActivity(5);
  ASSERT_GT(id, 0);
  ASSERT_EQ(provider.Buy(id, "d0"), ACCEPTED);
  ASSERT_EQ(provider.Buy(id, "d1"), ACCEPTED);
  // Reservations not yet written balance the cache's side.
  ReconcileResponse report = provider.Reconcile(id);
  EXPECT_EQ(report.reservations_without_order(), 2);
  EXPECT_EQ(report.cache_difference(), 0);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  OrderWriter writer(provider.core(), {.consumer = "w", .batch = 16, .claim_idle_ms = 1000});
  ASSERT_TRUE(WrittenUntil(provider, writer, id, 2));

  // Units lost from the cache (it holds less than the database): reported, not repaired.
  ASSERT_EQ(RawRedis({"DECRBY", StockKey(id), "2"}), "1");
  report = provider.Reconcile(id);
  EXPECT_FALSE(report.invariants_hold());
  EXPECT_EQ(report.cache_stock(), 1);
  EXPECT_EQ(report.database_stock(), 3);
  EXPECT_EQ(report.cache_difference(), -2);
  ASSERT_EQ(report.violations_size(), 1) << report.ShortDebugString();
  EXPECT_NE(report.violations(0).find("difference -2"), std::string::npos) << report.violations(0);
  // One unit too many.
  ASSERT_EQ(RawRedis({"INCRBY", StockKey(id), "3"}), "4");
  EXPECT_EQ(provider.Reconcile(id).cache_difference(), 1);
}

TEST_F(SeckillFailureTest, TheReconcilerExportsTheDifference) {
  config_.reconcile_interval_ms = 20;
  InProcessProvider provider;
  ASSERT_NO_FATAL_FAILURE(provider.Start(config_));
  const int64_t id = CreateActivity(provider.proxy(), {.sku_id = kSku, .stock = 4});
  ASSERT_GT(id, 0);
  ASSERT_EQ(RawRedis({"DECRBY", StockKey(id), "3"}), "1");
  EXPECT_TRUE(Eventually([] { return Metrics().cache_difference->Value() == 3; }))
      << Metrics().cache_difference->Value();
  ASSERT_EQ(RawRedis({"INCRBY", StockKey(id), "3"}), "4");
  EXPECT_TRUE(Eventually([] { return Metrics().cache_difference->Value() == 0; }));
}

// --- Redis loses its data ------------------------------------------------------------------

TEST_F(SeckillFailureTest, RedisRestartedEmptyMidSaleAnswersUnavailableUntilPreheated) {
  constexpr int64_t kStock = 30;
  InProcessProvider provider;
  ASSERT_NO_FATAL_FAILURE(provider.Start(config_));
  SeckillServiceProxy& proxy = provider.proxy();
  const int64_t id = CreateActivity(proxy, {.sku_id = kSku, .stock = kStock});
  ASSERT_GT(id, 0);
  ActivityRef ref;
  ref.set_activity_id(id);
  auto buy = [&](const std::string& user, const std::string& request) {
    return proxy.Purchase(Purchase(id, kSku, user, request));
  };

  // Ten orders are written; five more are reserved and Redis dies right after.
  for (int i = 0; i < 10; ++i) {
    auto r = buy("early-" + std::to_string(i), "early-" + std::to_string(i));
    ASSERT_TRUE(r.ok() && r->answer() == ACCEPTED) << r.status();
  }
  Settle(proxy, id, [](const ReconcileResponse& r) { return r.orders_unpaid() == 10; });
  for (int i = 0; i < 5; ++i) {
    auto r = buy("late-" + std::to_string(i), "late-" + std::to_string(i));
    ASSERT_TRUE(r.ok() && r->answer() == ACCEPTED) << r.status();
  }
  ASSERT_TRUE(SharedServers::redis().RestartEmpty());

  // Closed to purchases until an operator preheats again: new users, old users, retries.
  for (const char* user : {"new-a", "new-b", "early-0", "new-a"}) {
    auto r = buy(user, std::string(user) + "-during");
    ASSERT_FALSE(r.ok()) << user << ": " << PurchaseAnswer_Name(r->answer());
    EXPECT_EQ(r.status().code(), StatusCode::UNAVAILABLE) << r.status();
    EXPECT_NE(r.status().message().find("preheat"), std::string::npos) << r.status();
  }
  auto lost = proxy.GetActivity(ref);
  ASSERT_TRUE(lost.ok()) << lost.status();
  EXPECT_EQ(lost->state(), OPEN);
  EXPECT_EQ(lost->cache_stock(), -1);
  auto broken = proxy.Reconcile(ref);
  ASSERT_TRUE(broken.ok()) << broken.status();
  EXPECT_FALSE(broken->invariants_hold());

  // The writer finishes whatever it had in hand; then the preheat reloads from the database.
  std::this_thread::sleep_for(300ms);
  auto reopened = proxy.Preheat(ref);
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  EXPECT_FALSE(reopened->already_open());
  auto again = proxy.Preheat(ref);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->already_open());
  EXPECT_EQ(again->cached_stock(), reopened->cached_stock());
  EXPECT_LE(reopened->cached_stock(), kStock - 10);

  // Users holding orders stay refused; a request answered UNAVAILABLE is decided now.
  auto joined = buy("early-3", "early-3-after");
  ASSERT_TRUE(joined.ok()) << joined.status();
  EXPECT_EQ(joined->answer(), ALREADY_JOINED);
  auto retried = buy("new-a", "new-a-during");
  ASSERT_TRUE(retried.ok()) << retried.status();
  EXPECT_EQ(retried->answer(), ACCEPTED);

  // The sale goes on until sold out, and never past the stock.
  std::map<PurchaseAnswer, int> tally;
  std::vector<std::string> accepted = {"new-a-during"};
  for (int i = 0; i < 60; ++i) {
    const std::string user = "after-" + std::to_string(i);
    auto r = buy(user, user);
    ASSERT_TRUE(r.ok()) << r.status();
    ++tally[r->answer()];
    if (r->answer() == ACCEPTED) accepted.push_back(user);
  }
  EXPECT_GT(tally[SOLD_OUT], 0);
  EXPECT_LE(static_cast<int64_t>(accepted.size()), reopened->cached_stock());
  // Settled once a write the order writer had in hand when Redis died has landed too.
  const ReconcileResponse report = Settle(proxy, id, [](const ReconcileResponse& r) {
    return r.orders_unpaid() + r.orders_paid() >= kStock;
  });
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  const int64_t live = report.orders_unpaid() + report.orders_paid();
  EXPECT_LE(live, kStock);
  EXPECT_EQ(live, kStock) << "the sale should sell out";
  EXPECT_EQ(report.database_stock(), 0);
  EXPECT_EQ(report.cache_stock(), 0);
  EXPECT_EQ(report.users_with_two_orders(), 0);
  for (const std::string& request : accepted) {
    GetResultRequest get;
    get.set_request_id(request);
    get.set_activity_id(id);
    get.set_sku_id(kSku);
    auto result = proxy.GetResult(get);
    ASSERT_TRUE(result.ok()) << result.status();
    // Every reservation after the preheat got its decision; when the preheat loaded a unit
    // that a late write then took, the decision is FAILED (sold out), never an extra order.
    EXPECT_TRUE(result->state() == CREATED ||
                (result->state() == FAILED && result->reason() == "sold_out"))
        << request << ": " << result->ShortDebugString();
  }
}

// --- the order consumer killed -------------------------------------------------------------

// seckill-server as a child process; SIGKILLed when this object goes away.
class SeckillServerProcess {
 public:
  ~SeckillServerProcess() { Kill(); }

  // Starts it with `config_yaml` and waits for its listening line. Fatal failure otherwise.
  void Start(const std::filesystem::path& dir, const std::string& name,
             const std::string& config_yaml) {
    const std::filesystem::path config = dir / (name + ".yaml");
    std::ofstream(config) << config_yaml;
    log_ = dir / (name + ".log");
    const int log_fd = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    ASSERT_GE(log_fd, 0);
    const std::string config_path = config.string();
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    ASSERT_GE(pid_, 0);
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
      ::dup2(log_fd, STDOUT_FILENO);
      ::dup2(log_fd, STDERR_FILENO);
      ::execl(SECKILL_SERVER_BINARY, "seckill-server", "--config", config_path.c_str(),
              static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(log_fd);
    const bool ready = Eventually(
        [&] {
          const std::string text = Log();
          const size_t at = text.find("seckill-server listening on ");
          if (at == std::string::npos) return !Alive();
          const size_t colon = text.find(':', at + 28);
          const size_t end = text.find('\n', at);
          if (colon == std::string::npos || end == std::string::npos) return false;
          port_ = static_cast<uint16_t>(std::stoi(text.substr(colon + 1, end - colon - 1)));
          return true;
        },
        30s);
    ASSERT_TRUE(ready && port_ != 0) << "seckill-server did not start:\n" << Log();
  }

  void Kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

  bool Alive() {
    if (pid_ <= 0) return false;
    if (::waitpid(pid_, nullptr, WNOHANG) == 0) return true;
    pid_ = -1;  // exited (and reaped)
    return false;
  }
  uint16_t port() const { return port_; }
  std::string Log() const {
    std::ifstream in(log_);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

 private:
  std::filesystem::path log_;
  pid_t pid_ = -1;
  uint16_t port_ = 0;
};

TEST_F(SeckillFailureTest, TheOrderConsumerKilledMidStreamLosesAndDuplicatesNothing) {
  constexpr int64_t kStock = 200;
  constexpr int kBuyers = 150;
  TempDir dir;

  SeckillServerProcess first;
  ASSERT_NO_FATAL_FAILURE(first.Start(dir.path(), "first", ServerYaml(config_, 11)));
  auto proxy = NewProxy(first.port());
  ASSERT_NE(proxy, nullptr);
  const int64_t id = CreateActivity(*proxy, {.sku_id = kSku, .stock = kStock});
  ASSERT_GT(id, 0);

  // Hold the activity's stock row, so the consumer's first transaction waits on it: the burst
  // below stays in the stream, part delivered to the consumer and unacknowledged, part unread.
  std::unique_ptr<storage::SqlConnection> lock;
  Status s = storage::MariaDbConnection::Open(config_.mariadb, &lock);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_TRUE(lock->Begin().ok());
  std::vector<storage::SqlRow> rows;
  s = lock->Query(
      "SELECT remaining FROM seckill_stock WHERE activity_id = ? AND sku_id = ?"
      " FOR UPDATE",
      {id, kSku}, &rows);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(rows.size(), 1u);

  // The burst, with duplicates: retries of a request and second requests of a user.
  std::vector<std::pair<std::string, std::string>> calls;
  for (int i = 0; i < kBuyers; ++i) {
    calls.emplace_back("k-" + std::to_string(i), "k-" + std::to_string(i) + "-r");
  }
  for (int i = 0; i < kBuyers; i += 10) {
    calls.emplace_back("k-" + std::to_string(i), "k-" + std::to_string(i) + "-r");
    calls.emplace_back("k-" + std::to_string(i), "k-" + std::to_string(i) + "-again");
  }
  std::vector<PurchaseAnswer> answers(calls.size(), PURCHASE_ANSWER_UNSPECIFIED);
  std::atomic<size_t> next{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 16; ++t) {
    callers.emplace_back([&] {
      for (size_t i = next++; i < calls.size(); i = next++) {
        auto r = proxy->Purchase(Purchase(id, kSku, calls[i].first, calls[i].second));
        EXPECT_TRUE(r.ok()) << r.status();
        if (r.ok()) answers[i] = r->answer();
      }
    });
  }
  for (auto& caller : callers) caller.join();
  std::set<std::string> accepted;
  for (size_t i = 0; i < calls.size(); ++i) {
    if (answers[i] == ACCEPTED) accepted.insert(calls[i].second);
  }
  ASSERT_EQ(accepted.size(), static_cast<size_t>(kBuyers));

  // The consumer has taken a batch it cannot finish.
  const std::unique_ptr<ReservationCache> cache = ConnectCache();
  ASSERT_NE(cache, nullptr);
  CacheSnapshot snapshot;
  ASSERT_TRUE(Eventually(
      [&] { return cache->Snapshot(id, kSku, &snapshot).ok() && snapshot.queue_pending > 0; }, 10s))
      << first.Log();
  EXPECT_EQ(snapshot.reservations, kBuyers);
  EXPECT_LT(snapshot.queue_pending, kBuyers);  // and more remain unread

  // Accepted but not written yet.
  GetResultRequest pending;
  const std::string& request_id = *accepted.begin();
  pending.set_request_id(request_id);
  pending.set_activity_id(id);
  pending.set_sku_id(kSku);
  pending.set_user_id(request_id.substr(0, request_id.size() - 2));  // "<user>-r"
  auto state = proxy->GetResult(pending);
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_EQ(state->state(), PENDING);
  // The cache keeps pending requests per activity: without it there is nothing to look up.
  pending.clear_activity_id();
  pending.clear_sku_id();
  state = proxy->GetResult(pending);
  EXPECT_EQ(state.status().code(), StatusCode::NOT_FOUND) << state.status();
  EXPECT_NE(state.status().message().find("activity_id"), std::string::npos) << state.status();

  first.Kill();
  lock->Rollback();
  lock.reset();
  StoreCounts at_kill;
  {
    // Nothing was written while the row was held.
    HandBuiltProvider look(config_);
    ASSERT_TRUE(look.store().Count(id, kSku, &at_kill).ok());
    EXPECT_EQ(at_kill.orders_unpaid, 0);
  }

  SeckillServerProcess second;
  ASSERT_NO_FATAL_FAILURE(second.Start(dir.path(), "second", ServerYaml(config_, 12)));
  proxy = NewProxy(second.port());
  ASSERT_NE(proxy, nullptr);
  const ReconcileResponse report = Settle(
      *proxy, id,
      [&](const ReconcileResponse& r) {
        return r.orders_unpaid() + r.orders_paid() + r.orders_cancelled() >= kBuyers;
      },
      40s);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.reservations(), kBuyers);
  EXPECT_EQ(report.reservations_without_order(), 0);
  EXPECT_EQ(report.orders_unpaid(), kBuyers);
  EXPECT_EQ(report.users_with_two_orders(), 0);
  EXPECT_EQ(report.database_stock(), kStock - kBuyers);
  EXPECT_EQ(report.cache_stock(), kStock - kBuyers);
  std::set<int64_t> order_numbers;
  for (const std::string& request : accepted) {
    const int64_t order_no = WaitCreated(*proxy, id, kSku, request, 5s);
    EXPECT_TRUE(order_numbers.insert(order_no).second) << "order " << order_no << " twice";
  }
  // The stream is drained: nothing left pending for anyone.
  EXPECT_TRUE(Eventually(
      [&] { return cache->Snapshot(id, kSku, &snapshot).ok() && snapshot.queue_pending == 0; },
      10s))
      << "still pending: " << snapshot.queue_pending;
  // And trimmed: only the last delivered entry is left, marking the group's position.
  int64_t length = -1;
  EXPECT_TRUE(Eventually(
      [&] {
        return (length = RedisInt({"XLEN", ActivityKey(id, "orders")})) <= 1;
      },
      10s))
      << "stream length " << length;
  second.Kill();
}

// order_writer.threads: 0 makes a provider that only reserves; the orders are written by
// another seckill-server (the order consumer), which can then be stopped and started alone.
TEST_F(SeckillFailureTest, AProviderWithoutOrderWritersLeavesTheOrdersToTheConsumer) {
  constexpr int64_t kStock = 20;
  constexpr int kBuyers = 12;
  TempDir dir;
  SeckillServerProcess provider;
  ASSERT_NO_FATAL_FAILURE(provider.Start(dir.path(), "reserving-only", ServerYaml(config_, 21, 0)));
  auto proxy = NewProxy(provider.port());
  ASSERT_NE(proxy, nullptr);
  const int64_t id = CreateActivity(*proxy, {.sku_id = kSku, .stock = kStock});
  ASSERT_GT(id, 0);
  std::vector<std::string> accepted;
  for (int i = 0; i < kBuyers; ++i) {
    const std::string user = "c-" + std::to_string(i);
    auto r = proxy->Purchase(Purchase(id, kSku, user, user + "-r"));
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_EQ(r->answer(), ACCEPTED);
    accepted.push_back(user + "-r");
  }

  // Nobody reads the queue: every event stays undelivered (a writer would take them within
  // milliseconds).
  const std::unique_ptr<ReservationCache> cache = ConnectCache();
  ASSERT_NE(cache, nullptr);
  CacheSnapshot snapshot;
  EXPECT_FALSE(Eventually(
      [&] {
        return !cache->Snapshot(id, kSku, &snapshot).ok() || snapshot.queue_pending > 0 ||
               snapshot.queue_undelivered < kBuyers;
      },
      1500ms))
      << "pending " << snapshot.queue_pending << ", undelivered " << snapshot.queue_undelivered;
  GetResultRequest pending;
  pending.set_request_id(accepted.front());
  pending.set_activity_id(id);
  pending.set_sku_id(kSku);
  pending.set_user_id("c-0");
  auto state = proxy->GetResult(pending);
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_EQ(state->state(), PENDING);

  SeckillServerProcess consumer;
  ASSERT_NO_FATAL_FAILURE(consumer.Start(dir.path(), "consumer", ServerYaml(config_, 22, 1)));
  const ReconcileResponse report = Settle(
      *proxy, id, [&](const ReconcileResponse& r) { return r.orders_unpaid() >= kBuyers; }, 20s);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.orders_unpaid(), kBuyers);
  EXPECT_EQ(report.database_stock(), kStock - kBuyers);
  for (const std::string& request : accepted)
    EXPECT_GT(WaitCreated(*proxy, id, kSku, request, 5s), 0);
  consumer.Kill();
  provider.Kill();
}

// --- poison events: dead letters and compensation --------------------------------------------

// A reservation's event arrives damaged (its order number unreadable), and an entry that is no
// event at all sits in the queue. Each is handed out order_writer.max_deliveries times, then
// moved to the dead-letter queue and counted; the damaged reservation ends FAILED and its unit
// goes back to the cache exactly once, so the stock the cache sells matches the database's.
TEST_F(SeckillFailureTest, AnUnparsableEventIsDeadLetteredAndItsUnitReturnedOnce) {
  HandBuiltProvider provider(config_);
  const int64_t id = provider.CreateOpenActivity(3);
  ASSERT_GT(id, 0);
  ASSERT_EQ(provider.Buy(id, "p0"), ACCEPTED);
  // Its event is replaced by a damaged copy.
  std::vector<ReservationEvent> original;
  ASSERT_TRUE(provider.cache().ReadEvents(id, kSku, "thief", 10, &original).ok());
  ASSERT_EQ(original.size(), 1u);
  ASSERT_TRUE(provider.cache().Ack(id, kSku, {original[0].event_id}).ok());
  const std::string orders = ActivityKey(id, "orders");
  const std::string letters = ActivityKey(id, "dead_letters");
  EXPECT_FALSE(RedisText({"XADD", orders, "*", "activity", std::to_string(id), "sku",
                          std::to_string(kSku), "user", "p0", "request", "p0-r", "order_no",
                          "garbled", "reserved_ms", std::to_string(original[0].reserved_ms)})
                   .empty());
  EXPECT_FALSE(RedisText({"XADD", orders, "*", "written", "by something else"}).empty());

  const SeckillMetrics& metrics = Metrics();
  const uint64_t before = metrics.dead_letters_unparsable->Value();
  OrderWriter writer(provider.core(),
                     {.consumer = "w", .batch = 8, .claim_idle_ms = 1, .max_deliveries = 3});
  writer.Step();  // first delivery
  writer.Step();  // second
  EXPECT_EQ(RedisInt({"XLEN", letters}), 0);
  EXPECT_EQ(provider.Result(id, "p0", "p0-r").state(), PENDING);
  ASSERT_TRUE(Eventually([&] {
    writer.Step();
    return RedisInt({"XLEN", letters}) == 2;
  }));
  EXPECT_EQ(metrics.dead_letters_unparsable->Value() - before, 2u);
  const std::string letter = RedisText({"XRANGE", letters, "-", "+"});
  EXPECT_NE(letter.find("reason,unparsable,detail,field order_no is not an integer,event_id,"),
            std::string::npos)
      << letter;
  EXPECT_NE(letter.find(R"("user","p0","request","p0-r","order_no","garbled")"), std::string::npos)
      << letter;
  EXPECT_NE(letter.find(R"(["written","by something else"])"), std::string::npos) << letter;
  GetResultResponse result = provider.Result(id, "p0", "p0-r");
  EXPECT_EQ(result.state(), FAILED);
  EXPECT_EQ(result.reason(), kReasonUnparsable);

  // The unit is back in the cache and the database never lost it.
  ReconcileResponse report = provider.Reconcile(id);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.reservations_without_order(), 0);
  EXPECT_EQ(report.database_stock(), 3);
  EXPECT_EQ(report.cache_stock(), 3);
  EXPECT_EQ(report.queue_backlog(), 0);

  // A re-driven copy of the reservation arrives later: it replays the failure and returns
  // nothing a second time.
  ASSERT_TRUE(provider.cache().Requeue(original[0]).ok());
  ASSERT_TRUE(Eventually([&] {
    writer.Step();
    return provider.Reconcile(id).queue_backlog() == 0;
  }));
  report = provider.Reconcile(id);
  EXPECT_EQ(report.cache_stock(), 3);
  EXPECT_EQ(report.orders_unpaid(), 0);
  EXPECT_EQ(provider.Result(id, "p0", "p0-r").state(), FAILED);

  // The returned unit sells once more, to someone else; the failed buyer has joined.
  EXPECT_EQ(provider.Buy(id, "p0", "p0-again"), ALREADY_JOINED);
  for (int i = 1; i <= 3; ++i) ASSERT_EQ(provider.Buy(id, "p" + std::to_string(i)), ACCEPTED);
  EXPECT_EQ(provider.Buy(id, "p4"), SOLD_OUT);
  ASSERT_TRUE(Eventually([&] {
    writer.Step();
    return provider.Reconcile(id).orders_unpaid() == 3;
  }));
  report = provider.Reconcile(id);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.database_stock(), 0);
  EXPECT_EQ(report.cache_stock(), 0);
}

// Two reservations got the same order number; the second one's transaction can never commit.
// After max_deliveries it is dead-lettered with the database's error, FAILED (write_failed),
// and its unit returned: the cache and the database agree on the stock again.
TEST_F(SeckillFailureTest, AnEventWhoseTransactionKeepsFailingIsDeadLetteredAndCompensated) {
  HandBuiltProvider provider(config_);
  const int64_t id = provider.CreateOpenActivity(5);
  ASSERT_GT(id, 0);
  ASSERT_EQ(provider.Buy(id, "f0"), ACCEPTED);
  provider.RepeatNextOrderNo();
  ASSERT_EQ(provider.Buy(id, "f1"), ACCEPTED);

  const SeckillMetrics& metrics = Metrics();
  const uint64_t before = metrics.dead_letters_write_failed->Value();
  const std::string letters = ActivityKey(id, "dead_letters");
  OrderWriter writer(provider.core(),
                     {.consumer = "w", .batch = 8, .claim_idle_ms = 1, .max_deliveries = 4});
  for (int delivery = 1; delivery < 4; ++delivery) writer.Step();
  EXPECT_EQ(RedisInt({"XLEN", letters}), 0);
  EXPECT_EQ(provider.Result(id, "f1", "f1-r").state(), PENDING);
  ASSERT_TRUE(Eventually([&] {
    writer.Step();
    return RedisInt({"XLEN", letters}) == 1;
  }));
  EXPECT_EQ(metrics.dead_letters_write_failed->Value() - before, 1u);
  const std::string letter = RedisText({"XRANGE", letters, "-", "+"});
  EXPECT_NE(letter.find("reason,write_failed,detail,ALREADY_EXISTS"), std::string::npos) << letter;
  EXPECT_NE(letter.find(R"("user","f1","request","f1-r")"), std::string::npos) << letter;
  EXPECT_EQ(provider.Result(id, "f0", "f0-r").state(), CREATED);
  const GetResultResponse failed = provider.Result(id, "f1", "f1-r");
  EXPECT_EQ(failed.state(), FAILED);
  EXPECT_EQ(failed.reason(), kReasonWriteFailed);

  const ReconcileResponse report = provider.Reconcile(id);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.orders_unpaid(), 1);
  EXPECT_EQ(report.database_stock(), 4);
  EXPECT_EQ(report.cache_stock(), 4);
  EXPECT_EQ(report.reservations_without_order(), 0);
  EXPECT_EQ(report.queue_backlog(), 0);
}

// --- re-drives: one provider at a time, bounded ----------------------------------------------

// Two providers reconcile the same activity at the same moment, five reservations overdue:
// only the holder of the re-drive lease queues them again, at most redrive_batch per pass, and
// each once per grace period; the other provider's passes queue nothing.
TEST_F(SeckillFailureTest, OnlyTheLeaseHolderRedrivesAndEachPassIsBounded) {
  constexpr int64_t kGraceMs = 1500;
  HandBuiltProvider first(config_, kGraceMs, "first", /*redrive_batch=*/3);
  HandBuiltProvider second(config_, kGraceMs, "second", /*redrive_batch=*/3);
  const int64_t id = first.CreateOpenActivity(10);
  ASSERT_GT(id, 0);
  constexpr int kLost = 5;
  for (int i = 0; i < kLost; ++i) ASSERT_EQ(first.Buy(id, "l" + std::to_string(i)), ACCEPTED);
  std::vector<ReservationEvent> lost;
  ASSERT_TRUE(first.cache().ReadEvents(id, kSku, "lost", 10, &lost).ok());
  ASSERT_EQ(lost.size(), static_cast<size_t>(kLost));
  std::vector<std::string> ids;
  for (const ReservationEvent& e : lost) ids.push_back(e.event_id);
  ASSERT_TRUE(first.cache().Ack(id, kSku, ids).ok());
  const std::string orders = ActivityKey(id, "orders");
  const int64_t length_before = RedisInt({"XLEN", orders});
  std::this_thread::sleep_for(std::chrono::milliseconds(kGraceMs + 100));

  auto both = [&] {
    ReconcileResponse a;
    ReconcileResponse b;
    std::thread x([&] { a = first.Reconcile(id); });
    std::thread y([&] { b = second.Reconcile(id); });
    x.join();
    y.join();
    EXPECT_TRUE(a.redriven() == 0 || b.redriven() == 0) << a.redriven() << " and " << b.redriven();
    return a.redriven() + b.redriven();
  };
  EXPECT_EQ(both(), 3);
  EXPECT_EQ(both(), 2);  // the rest; the first three wait out their grace period
  EXPECT_EQ(both(), 0);
  EXPECT_EQ(RedisInt({"XLEN", orders}) - length_before, kLost);

  OrderWriter writer(first.core(), {.consumer = "w", .batch = 8, .claim_idle_ms = 1000});
  ASSERT_TRUE(Eventually([&] {
    writer.Step();
    return first.Reconcile(id).reservations_without_order() == 0;
  }));
  const ReconcileResponse report = first.Reconcile(id);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.orders_unpaid(), kLost);
  EXPECT_EQ(report.database_stock(), 10 - kLost);
  EXPECT_EQ(report.cache_stock(), 10 - kLost);
}

// --- the queue does not grow without bound ---------------------------------------------------

TEST_F(SeckillFailureTest, AcknowledgedEventsDoNotGrowTheQueue) {
  HandBuiltProvider provider(config_);
  constexpr int kRounds = 5;
  constexpr int kPerRound = 40;
  const int64_t id = provider.CreateOpenActivity(kRounds * kPerRound);
  ASSERT_GT(id, 0);
  const std::string orders = ActivityKey(id, "orders");
  OrderWriter writer(provider.core(), {.consumer = "w", .batch = 16, .claim_idle_ms = 1000});
  for (int round = 0; round < kRounds; ++round) {
    for (int i = 0; i < kPerRound; ++i) {
      ASSERT_EQ(provider.Buy(id, "t" + std::to_string(round) + "-" + std::to_string(i)), ACCEPTED);
    }
    ASSERT_TRUE(Eventually([&] {
      writer.Step();
      return provider.Reconcile(id).queue_backlog() == 0;
    }));
    // Only the last delivered entry stays, marking the group's position.
    EXPECT_LE(RedisInt({"XLEN", orders}), 1) << "round " << round;
  }
  const ReconcileResponse report = provider.Reconcile(id);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.orders_unpaid(), kRounds * kPerRound);
  EXPECT_EQ(report.reservations_without_order(), 0);
}

}  // namespace
}  // namespace ferry::seckill
