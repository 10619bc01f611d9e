#pragma once

// Shared by the seckill failure tests (redis+mariadb against a real Redis and MariaDB): the
// fixture, a provider assembled by hand so that a test can drive its background jobs step by
// step, and a few raw Redis helpers for damaging what the cache holds.

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
#include "service/payments.h"
#include "service/reconciler.h"
#include "service/seckill_metrics.h"
#include "service/seckill_service.h"
#include "storage/order_database.h"
#include "storage/redis_reservation_cache.h"
#include "storage/sql_order_store.h"

namespace ferry::seckill::failure_test {

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

inline std::string ActivityKey(int64_t activity_id, const std::string& name) {
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
    // No payment channel: these tests cancel orders, and pay none.
    payments_ = std::make_unique<Payments>(
        store_.get(), [] { return WallMs(); }, PaymentOptions{},
        std::vector<std::unique_ptr<PaymentChannel>>{},
        [core = core_.get()](const OrderRecord& order, int64_t epoch) {
          (void)core->PublishRelease(
              {order.order_no, order.activity_id, order.sku_id, epoch, epoch});
        });
    core_->deps.payments = payments_.get();
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
    AdmissionContext context;
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

  PreheatResponse Preheat(int64_t id, bool force = false) {
    AdmissionContext context;
    PreheatResponse response;
    Status s = service_->Preheat(context, PreheatOf(id, force), &response);
    EXPECT_TRUE(s.ok()) << s;
    return response;
  }

  // As the order's buyer.
  CancelOrderResponse Cancel(int64_t order_no) {
    OrderRecord order;
    EXPECT_TRUE(store_->GetOrder(order_no, &order).ok());
    AdmissionContext context;
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
    AdmissionContext context;
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
  SeckillServiceImpl& service() { return *service_; }

 private:
  std::atomic<int64_t> next_order_{5'000'000};
  std::atomic<bool> repeat_order_no_{false};
  std::unique_ptr<OrderStore> store_;
  std::unique_ptr<ReservationCache> cache_;
  std::unique_ptr<SeckillCore> core_;
  std::unique_ptr<Payments> payments_;
  std::unique_ptr<SeckillServiceImpl> service_;
};

// One command on the shared Redis, bypassing the cache (to damage what it holds).
inline std::string RawRedis(const std::vector<std::string>& args) {
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

inline std::string StockKey(int64_t activity_id) {
  return "seckill:{" + std::to_string(activity_id) + ":" + std::to_string(kSku) + "}:stock";
}

// Orders written by `writer` until the database holds `count` live ones.
inline ::testing::AssertionResult WrittenUntil(HandBuiltProvider& provider, OrderWriter& writer,
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

}  // namespace ferry::seckill::failure_test
