// RedisReservationCache against a real redis-server: exact stock accounting (also under
// concurrency), replay by request id, preheat idempotence, data loss, malformed keys, the order
// queue (read, claim, ack, requeue) and release idempotence.

#include "storage/redis_reservation_cache.h"

#include <gtest/gtest.h>
#include <hiredis.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "redis_server.h"

namespace ferry::seckill {
namespace {

using namespace std::chrono_literals;
using testsupport::RedisServer;

constexpr int64_t kActivity = 7;
constexpr int64_t kSku = 42;
const std::string kPrefix = "seckill:{7:42}:";
constexpr int64_t kEpoch = 4242;  // the cache generation the tests load

// A plain connection for looking at (and tampering with) the keys directly.
class RawRedis {
 public:
  explicit RawRedis(const RedisServer& server) {
    const timeval timeout{.tv_sec = 5, .tv_usec = 0};
    context_ = redisConnectWithTimeout(server.host().c_str(), server.port(), timeout);
    if (context_ != nullptr && context_->err == 0) redisSetTimeout(context_, timeout);
  }
  ~RawRedis() {
    if (context_ != nullptr) redisFree(context_);
  }
  RawRedis(const RawRedis&) = delete;
  RawRedis& operator=(const RawRedis&) = delete;

  // The reply as text: a string or status, an integer, "(nil)", "ERR:<message>" or, for an
  // array, its elements' texts joined by ','.
  std::string Run(const std::vector<std::string>& args) {
    std::vector<const char*> argv;
    std::vector<size_t> lens;
    for (const auto& a : args) {
      argv.push_back(a.data());
      lens.push_back(a.size());
    }
    auto* reply = static_cast<redisReply*>(
        redisCommandArgv(context_, static_cast<int>(argv.size()), argv.data(), lens.data()));
    if (reply == nullptr) return "no reply: " + std::string(context_->errstr);
    std::string text = Text(reply);
    freeReplyObject(reply);
    return text;
  }
  int64_t Int(const std::vector<std::string>& args) { return std::stoll(Run(args)); }

 private:
  static std::string Text(const redisReply* reply) {
    switch (reply->type) {
      case REDIS_REPLY_STRING:
      case REDIS_REPLY_STATUS:
        return std::string(reply->str, reply->len);
      case REDIS_REPLY_INTEGER:
        return std::to_string(reply->integer);
      case REDIS_REPLY_NIL:
        return "(nil)";
      case REDIS_REPLY_ERROR:
        return "ERR:" + std::string(reply->str, reply->len);
      case REDIS_REPLY_ARRAY: {
        std::string joined;
        for (size_t i = 0; i < reply->elements; ++i) {
          if (i > 0) joined += ",";
          joined += Text(reply->element[i]);
        }
        return joined;
      }
      default:
        return "?";
    }
  }

  redisContext* context_ = nullptr;
};

ReserveRequest Request(const std::string& user, const std::string& request_id, int64_t order_no,
                       int64_t now_ms = 1700000000000, int64_t epoch = kEpoch) {
  return ReserveRequest{.activity_id = kActivity,
                        .sku_id = kSku,
                        .user_id = user,
                        .request_id = request_id,
                        .order_no = order_no,
                        .now_ms = now_ms,
                        .cache_epoch = epoch};
}

// Generation kEpoch of an activity over keys that are not there yet.
CacheLoad Load(int64_t stock, const std::vector<std::string>& buyers = {},
               int64_t activity = kActivity, int64_t sku = kSku) {
  return CacheLoad{
      .activity_id = activity, .sku_id = sku, .epoch = kEpoch, .stock = stock, .buyers = buyers};
}

// A reload's two steps on the cache: the fence over the marker there now, then the load.
void FenceAndLoad(ReservationCache& cache, const CacheLoad& load) {
  CacheSnapshot before;
  ASSERT_TRUE(cache.Snapshot(load.activity_id, load.sku_id, &before).ok());
  bool fenced = false;
  ASSERT_TRUE(
      cache.Fence(load.activity_id, load.sku_id, before.marker, load.epoch, 1000, &fenced).ok());
  ASSERT_TRUE(fenced);
  bool raced = true;
  ASSERT_TRUE(cache.Preheat(load, &raced).ok());
  ASSERT_FALSE(raced);
}

class RedisReservationCacheTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new RedisServer({.appendonly = true, .extra_args = {"--appendfsync", "everysec"}});
    ASSERT_TRUE(server_->Start());
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }

  void SetUp() override {
    ASSERT_NE(server_, nullptr);
    raw_ = std::make_unique<RawRedis>(*server_);
    ASSERT_EQ(raw_->Run({"FLUSHALL"}), "OK");
    std::unique_ptr<ReservationCache> cache;
    ASSERT_TRUE(ConnectRedisReservationCache(Options(), &cache).ok());
    cache_ = std::move(cache);
  }

  static storage::RedisOptions Options() {
    return storage::RedisOptions{
        .host = server_->host(), .port = server_->port(), .pool_size = 4, .timeout_ms = 2000};
  }

  void Preheat(int64_t stock, const std::vector<std::string>& buyers = {}) {
    ASSERT_NO_FATAL_FAILURE(FenceAndLoad(Load(stock, buyers)));
  }

  void FenceAndLoad(const CacheLoad& load) {
    ASSERT_NO_FATAL_FAILURE(seckill::FenceAndLoad(*cache_, load));
  }

  ReserveResult Reserve(const ReserveRequest& request) {
    ReserveResult result;
    Status status = cache_->Reserve(request, &result);
    EXPECT_TRUE(status.ok()) << status;
    return result;
  }

  CacheSnapshot Snap() {
    CacheSnapshot snapshot;
    Status status = cache_->Snapshot(kActivity, kSku, &snapshot);
    EXPECT_TRUE(status.ok()) << status;
    return snapshot;
  }

  static RedisServer* server_;
  std::unique_ptr<RawRedis> raw_;
  std::unique_ptr<ReservationCache> cache_;
};

RedisServer* RedisReservationCacheTest::server_ = nullptr;

TEST_F(RedisReservationCacheTest, SellsExactlyTheStock) {
  Preheat(10);
  int accepted = 0;
  int sold_out = 0;
  std::map<std::string, int64_t> order_of_request;
  for (int i = 0; i < 50; ++i) {
    const std::string request_id = "req-" + std::to_string(i);
    ReserveResult result = Reserve(Request("user-" + std::to_string(i), request_id, 1000 + i));
    EXPECT_FALSE(result.replayed);
    if (result.answer == ReserveAnswer::kAccepted) {
      ++accepted;
      EXPECT_EQ(result.order_no, 1000 + i);
      order_of_request[request_id] = result.order_no;
    } else {
      EXPECT_EQ(result.answer, ReserveAnswer::kSoldOut);
      ++sold_out;
    }
  }
  EXPECT_EQ(accepted, 10);
  EXPECT_EQ(sold_out, 40);

  CacheSnapshot snapshot = Snap();
  EXPECT_TRUE(snapshot.present);
  EXPECT_EQ(snapshot.stock, 0);
  EXPECT_EQ(snapshot.reservations, 10);
  EXPECT_EQ(snapshot.queue_pending, 0);
  EXPECT_EQ(raw_->Run({"GET", kPrefix + "stock"}), "0");
  EXPECT_EQ(raw_->Int({"SCARD", kPrefix + "buyers"}), 10);
  EXPECT_EQ(raw_->Int({"HLEN", kPrefix + "requests"}), 50);
  EXPECT_EQ(raw_->Int({"XLEN", kPrefix + "orders"}), 10);
  // No key expires.
  for (const char* key : {"stock", "loaded", "buyers", "requests", "accepted", "orders"}) {
    EXPECT_EQ(raw_->Int({"TTL", kPrefix + key}), -1) << key;
  }

  std::vector<ReservationEvent> listed;
  ASSERT_TRUE(cache_->ListReservations(kActivity, kSku, &listed).ok());
  ASSERT_EQ(listed.size(), 10u);
  for (const ReservationEvent& event : listed) {
    ASSERT_EQ(order_of_request.count(event.request_id), 1u) << event.request_id;
    EXPECT_EQ(event.order_no, order_of_request[event.request_id]);
    EXPECT_EQ(event.user_id, "user-" + event.request_id.substr(4));
    EXPECT_EQ(event.activity_id, kActivity);
    EXPECT_EQ(event.sku_id, kSku);
    EXPECT_EQ(event.reserved_ms, 1700000000000);
    EXPECT_TRUE(event.event_id.empty());
  }
  EXPECT_TRUE(std::is_sorted(listed.begin(), listed.end(),
                             [](const auto& a, const auto& b) { return a.order_no < b.order_no; }));
}

TEST_F(RedisReservationCacheTest, ConcurrentReserversTakeExactlyTheStock) {
  constexpr int kStock = 100;
  constexpr int kThreads = 8;
  constexpr int kUsersPerThread = 60;
  Preheat(kStock);
  std::atomic<int> accepted{0}, sold_out{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kUsersPerThread; ++i) {
        const int n = t * kUsersPerThread + i;
        ReserveResult result;
        Status status = cache_->Reserve(
            Request("u" + std::to_string(n), "r" + std::to_string(n), 5000 + n), &result);
        if (!status.ok()) {
          ++failed;
        } else if (result.answer == ReserveAnswer::kAccepted) {
          ++accepted;
        } else if (result.answer == ReserveAnswer::kSoldOut) {
          ++sold_out;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(accepted.load(), kStock);
  EXPECT_EQ(sold_out.load(), kThreads * kUsersPerThread - kStock);
  CacheSnapshot snapshot = Snap();
  EXPECT_EQ(snapshot.stock, 0);
  EXPECT_EQ(snapshot.reservations, kStock);

  std::vector<ReservationEvent> events;
  ASSERT_TRUE(cache_->ReadEvents(kActivity, kSku, "writer", 1000, &events).ok());
  EXPECT_EQ(events.size(), static_cast<size_t>(kStock));
  std::set<std::string> users;
  for (const auto& event : events) users.insert(event.user_id);
  EXPECT_EQ(users.size(), static_cast<size_t>(kStock));
}

TEST_F(RedisReservationCacheTest, ReplayReturnsTheRecordedAnswerAndWritesNothing) {
  Preheat(1);
  ReserveResult first = Reserve(Request("alice", "req-a", 111));
  ASSERT_EQ(first.answer, ReserveAnswer::kAccepted);
  EXPECT_FALSE(first.replayed);
  EXPECT_EQ(first.order_no, 111);

  // Same request id, even with another order number: the first answer, nothing taken.
  ReserveResult again = Reserve(Request("alice", "req-a", 222));
  EXPECT_EQ(again.answer, ReserveAnswer::kAccepted);
  EXPECT_TRUE(again.replayed);
  EXPECT_EQ(again.order_no, 111);
  EXPECT_EQ(Snap().stock, 0);
  EXPECT_EQ(Snap().reservations, 1);
  EXPECT_EQ(raw_->Int({"XLEN", kPrefix + "orders"}), 1);

  ReserveResult sold = Reserve(Request("bob", "req-b", 333));
  EXPECT_EQ(sold.answer, ReserveAnswer::kSoldOut);
  EXPECT_FALSE(sold.replayed);
  // A unit comes back, but the request id keeps its answer.
  ReleaseOutcome released = ReleaseOutcome::kReleased;
  ASSERT_TRUE(cache_->Release(kActivity, kSku, "111", kEpoch, &released).ok());
  EXPECT_EQ(released, ReleaseOutcome::kReleased);
  ReserveResult sold_again = Reserve(Request("bob", "req-b", 333));
  EXPECT_EQ(sold_again.answer, ReserveAnswer::kSoldOut);
  EXPECT_TRUE(sold_again.replayed);
  EXPECT_EQ(Snap().stock, 1);
  // A new attempt gets the unit.
  ReserveResult retry = Reserve(Request("bob", "req-b2", 444));
  EXPECT_EQ(retry.answer, ReserveAnswer::kAccepted);
  EXPECT_EQ(retry.order_no, 444);
  EXPECT_EQ(Snap().stock, 0);
}

// The requests hash is keyed by (user, request id): another buyer reusing an id gets a decision
// of their own, "Bob" and "bob" are two buyers, and the reconciler reads both back.
TEST_F(RedisReservationCacheTest, ARequestIdIsScopedByItsUser) {
  Preheat(2);
  ASSERT_EQ(Reserve(Request("Bob", "r-1", 1)).answer, ReserveAnswer::kAccepted);
  const ReserveResult bob = Reserve(Request("bob", "r-1", 2));
  EXPECT_EQ(bob.answer, ReserveAnswer::kAccepted);
  EXPECT_FALSE(bob.replayed);
  EXPECT_EQ(bob.order_no, 2);
  const ReserveResult late = Reserve(Request("bob ", "r-1", 3));
  EXPECT_EQ(late.answer, ReserveAnswer::kSoldOut);
  EXPECT_FALSE(late.replayed);
  EXPECT_EQ(raw_->Run({"HGET", kPrefix + "requests", "3:Bob:r-1"}).substr(0, 4), "A:1:");
  EXPECT_EQ(raw_->Run({"HGET", kPrefix + "requests", "4:bob :r-1"}), "S");

  std::vector<ReservationEvent> reservations;
  ASSERT_TRUE(cache_->ListReservations(kActivity, kSku, &reservations).ok());
  ASSERT_EQ(reservations.size(), 2u);
  EXPECT_EQ(reservations[0].user_id, "Bob");
  EXPECT_EQ(reservations[0].request_id, "r-1");
  EXPECT_EQ(reservations[1].user_id, "bob");
  EXPECT_EQ(reservations[1].request_id, "r-1");
}

TEST_F(RedisReservationCacheTest, SameUserWithANewRequestHasAlreadyJoined) {
  Preheat(5, {"carol"});  // carol bought before the cache was loaded
  ReserveResult result = Reserve(Request("dave", "d1", 1));
  ASSERT_EQ(result.answer, ReserveAnswer::kAccepted);
  ReserveResult joined = Reserve(Request("dave", "d2", 2));
  EXPECT_EQ(joined.answer, ReserveAnswer::kAlreadyJoined);
  EXPECT_FALSE(joined.replayed);
  ReserveResult joined_again = Reserve(Request("dave", "d2", 3));
  EXPECT_EQ(joined_again.answer, ReserveAnswer::kAlreadyJoined);
  EXPECT_TRUE(joined_again.replayed);
  EXPECT_EQ(Reserve(Request("carol", "c1", 4)).answer, ReserveAnswer::kAlreadyJoined);
  EXPECT_EQ(raw_->Run({"HGET", kPrefix + "requests", "4:dave:d2"}), "J");
  CacheSnapshot snapshot = Snap();
  EXPECT_EQ(snapshot.stock, 4);
  EXPECT_EQ(snapshot.reservations, 1);
  EXPECT_EQ(raw_->Int({"XLEN", kPrefix + "orders"}), 1);
}

TEST_F(RedisReservationCacheTest, FindRequestTellsTheRecordedAnswer) {
  bool found = true;
  ReserveResult result;
  ASSERT_TRUE(cache_->FindRequest({kActivity, kSku, "ann", "a1"}, &found, &result).ok());
  EXPECT_FALSE(found);
  ASSERT_EQ(Reserve(Request("ann", "a1", 1)).answer, ReserveAnswer::kCacheMissing);
  ASSERT_TRUE(cache_->FindRequest({kActivity, kSku, "ann", "a1"}, &found, &result).ok());
  EXPECT_FALSE(found);  // a cache miss is not recorded

  Preheat(1);
  ASSERT_EQ(Reserve(Request("ann", "a1", 91)).answer, ReserveAnswer::kAccepted);
  ASSERT_EQ(Reserve(Request("ann", "a2", 92)).answer, ReserveAnswer::kAlreadyJoined);
  ASSERT_EQ(Reserve(Request("ben", "b1", 93)).answer, ReserveAnswer::kSoldOut);
  const std::string before = raw_->Run({"HGETALL", kPrefix + "requests"});

  ASSERT_TRUE(cache_->FindRequest({kActivity, kSku, "ann", "a1"}, &found, &result).ok());
  EXPECT_TRUE(found);
  EXPECT_EQ(result.answer, ReserveAnswer::kAccepted);
  EXPECT_TRUE(result.replayed);
  EXPECT_EQ(result.order_no, 91);
  ASSERT_TRUE(cache_->FindRequest({kActivity, kSku, "ann", "a2"}, &found, &result).ok());
  EXPECT_TRUE(found);
  EXPECT_EQ(result.answer, ReserveAnswer::kAlreadyJoined);
  EXPECT_TRUE(result.replayed);
  ASSERT_TRUE(cache_->FindRequest({kActivity, kSku, "ben", "b1"}, &found, &result).ok());
  EXPECT_TRUE(found);
  EXPECT_EQ(result.answer, ReserveAnswer::kSoldOut);
  ASSERT_TRUE(cache_->FindRequest({kActivity, kSku + 1, "ann", "a1"}, &found, &result).ok());
  EXPECT_FALSE(found);  // another activity's request ids are apart
  EXPECT_EQ(raw_->Run({"HGETALL", kPrefix + "requests"}), before);
}

TEST_F(RedisReservationCacheTest, APreheatLoadsOnlyTheKeysItFenced) {
  Preheat(5, {"b1", "b2"});
  ASSERT_EQ(Reserve(Request("x", "x1", 1)).answer, ReserveAnswer::kAccepted);
  // A second load whose fence was overtaken (the keys are not fenced for it): nothing changes.
  bool raced = false;
  ASSERT_TRUE(cache_->Preheat(Load(100, {"b3"}), &raced).ok());
  EXPECT_TRUE(raced);
  EXPECT_EQ(Snap().stock, 4);
  EXPECT_EQ(Snap().epoch, kEpoch);
  EXPECT_EQ(raw_->Int({"SCARD", kPrefix + "buyers"}), 3);  // b1, b2, x
  EXPECT_EQ(raw_->Int({"SISMEMBER", kPrefix + "buyers", "b3"}), 0);
  // The consumer group exists from the first preheat.
  EXPECT_NE(raw_->Run({"XINFO", "GROUPS", kPrefix + "orders"}).find("order-writers"),
            std::string::npos);
  // A fence expecting a marker that is not there any more fences nothing.
  bool fenced = true;
  ASSERT_TRUE(cache_->Fence(kActivity, kSku, "", kEpoch + 1, 1000, &fenced).ok());
  EXPECT_FALSE(fenced);
  EXPECT_EQ(Reserve(Request("y", "y1", 2)).answer, ReserveAnswer::kAccepted);
  // Another activity is independent.
  ASSERT_NO_FATAL_FAILURE(FenceAndLoad(Load(3, {}, kActivity, kSku + 1)));
  EXPECT_EQ(raw_->Run({"GET", "seckill:{7:43}:stock"}), "3");
}

TEST_F(RedisReservationCacheTest, ANewGenerationRefusesTheOldOneAndKeepsOrWipesTheAnswers) {
  Preheat(5);
  ASSERT_EQ(Reserve(Request("x", "x1", 1)).answer, ReserveAnswer::kAccepted);
  ReleaseOutcome released = ReleaseOutcome::kReleased;
  ASSERT_TRUE(cache_->Release(kActivity, kSku, "r:old", kEpoch, &released).ok());
  ASSERT_EQ(released, ReleaseOutcome::kReleased);

  // Generation kEpoch + 1 over kEpoch's keys, keeping its answers and queue.
  CacheLoad next = Load(7, {"y"});
  next.epoch = kEpoch + 1;
  next.keep_requests = true;
  next.released_keys = {"r:done"};
  ASSERT_NO_FATAL_FAILURE(FenceAndLoad(next));
  const CacheSnapshot snapshot = Snap();
  EXPECT_EQ(snapshot.epoch, kEpoch + 1);
  EXPECT_EQ(snapshot.stock, 7);
  EXPECT_EQ(snapshot.reservations, 1);
  EXPECT_EQ(raw_->Int({"XLEN", kPrefix + "orders"}), 1);
  EXPECT_EQ(raw_->Int({"SISMEMBER", kPrefix + "buyers", "x"}), 0);  // replaced
  EXPECT_EQ(raw_->Int({"SISMEMBER", kPrefix + "buyers", "y"}), 1);
  EXPECT_EQ(raw_->Int({"SISMEMBER", kPrefix + "released", "r:old"}), 0);
  // Callers of the old generation are refused, writing nothing; the new one replays.
  EXPECT_EQ(Reserve(Request("z", "z1", 2)).answer, ReserveAnswer::kOtherEpoch);
  EXPECT_EQ(Reserve(Request("x", "x1", 1)).answer, ReserveAnswer::kOtherEpoch);
  ASSERT_TRUE(cache_->Release(kActivity, kSku, "9", kEpoch, &released).ok());
  EXPECT_EQ(released, ReleaseOutcome::kNotCurrent);
  ReserveRequest replay = Request("x", "x1", 3);
  replay.cache_epoch = kEpoch + 1;
  const ReserveResult replayed = Reserve(replay);
  EXPECT_TRUE(replayed.replayed);
  EXPECT_EQ(replayed.order_no, 1);
  ASSERT_TRUE(cache_->Release(kActivity, kSku, "r:done", kEpoch + 1, &released).ok());
  EXPECT_EQ(released, ReleaseOutcome::kAlreadyReleased);
  EXPECT_EQ(Snap().stock, 7);

  // Keys of another activity under the same id: wiped.
  CacheLoad fresh = Load(2);
  fresh.epoch = kEpoch + 2;
  ASSERT_NO_FATAL_FAILURE(FenceAndLoad(fresh));
  EXPECT_EQ(Snap().reservations, 0);
  EXPECT_EQ(raw_->Int({"EXISTS", kPrefix + "requests"}), 0);
  EXPECT_EQ(raw_->Int({"XLEN", kPrefix + "orders"}), 0);
  replay.cache_epoch = kEpoch + 2;
  EXPECT_FALSE(Reserve(replay).replayed);
}

// The fence closes sales and releases of the generation it replaces, and keeps saying whose data
// the keys hold through reloads that fenced and died.
TEST_F(RedisReservationCacheTest, AFenceClosesTheGenerationAndRemembersWhoseDataTheKeysHold) {
  Preheat(5);
  ASSERT_EQ(Reserve(Request("x", "x1", 1)).answer, ReserveAnswer::kAccepted);
  const std::string loaded = Snap().marker;
  bool fenced = false;
  ASSERT_TRUE(cache_->Fence(kActivity, kSku, loaded, kEpoch + 1, 5000, &fenced).ok());
  ASSERT_TRUE(fenced);
  CacheSnapshot snapshot = Snap();
  EXPECT_TRUE(snapshot.loading);
  EXPECT_EQ(snapshot.epoch, kEpoch + 1);
  EXPECT_EQ(snapshot.loading_since_ms, 5000);
  EXPECT_EQ(snapshot.data_epoch, kEpoch);
  EXPECT_EQ(Reserve(Request("y", "y1", 2)).answer, ReserveAnswer::kLoading);
  EXPECT_EQ(Reserve(Request("x", "x1", 1)).answer, ReserveAnswer::kLoading);  // no replay either
  ReleaseOutcome released = ReleaseOutcome::kReleased;
  ASSERT_TRUE(cache_->Release(kActivity, kSku, "1", kEpoch, &released).ok());
  EXPECT_EQ(released, ReleaseOutcome::kNotCurrent);
  bool marked = true;
  ASSERT_TRUE(cache_->MarkStale(kActivity, kSku, kEpoch, &marked).ok());
  EXPECT_FALSE(marked);
  // A second reload fences over the first one's marker: the data is still kEpoch's.
  ASSERT_TRUE(cache_->Fence(kActivity, kSku, snapshot.marker, kEpoch + 2, 6000, &fenced).ok());
  ASSERT_TRUE(fenced);
  snapshot = Snap();
  EXPECT_EQ(snapshot.epoch, kEpoch + 2);
  EXPECT_EQ(snapshot.data_epoch, kEpoch);
  // The first reload's load finds its fence gone and writes nothing.
  CacheLoad first = Load(9);
  first.epoch = kEpoch + 1;
  bool raced = false;
  ASSERT_TRUE(cache_->Preheat(first, &raced).ok());
  EXPECT_TRUE(raced);
  EXPECT_EQ(Snap().stock, 4);
  CacheLoad second = Load(7);
  second.epoch = kEpoch + 2;
  second.keep_requests = true;
  ASSERT_TRUE(cache_->Preheat(second, &raced).ok());
  EXPECT_FALSE(raced);
  snapshot = Snap();
  EXPECT_FALSE(snapshot.loading);
  EXPECT_EQ(snapshot.epoch, kEpoch + 2);
  EXPECT_EQ(snapshot.stock, 7);
  EXPECT_EQ(snapshot.reservations, 1);  // kept: the sequence goes on
}

TEST_F(RedisReservationCacheTest, AStaleGenerationSellsNothing) {
  Preheat(5);
  bool marked = false;
  ASSERT_TRUE(cache_->MarkStale(kActivity, kSku, kEpoch + 1, &marked).ok());
  EXPECT_FALSE(marked);  // not the generation loaded
  ASSERT_TRUE(cache_->MarkStale(kActivity, kSku, kEpoch, &marked).ok());
  EXPECT_TRUE(marked);
  const CacheSnapshot snapshot = Snap();
  EXPECT_TRUE(snapshot.stale);
  EXPECT_EQ(snapshot.epoch, kEpoch);
  EXPECT_EQ(Reserve(Request("x", "x1", 1)).answer, ReserveAnswer::kOtherEpoch);
  ReleaseOutcome released = ReleaseOutcome::kReleased;
  ASSERT_TRUE(cache_->Release(kActivity, kSku, "1", kEpoch, &released).ok());
  EXPECT_EQ(released, ReleaseOutcome::kNotCurrent);
  EXPECT_EQ(Snap().stock, 5);
  // Every reservation carries its generation and sequence number.
  const std::string generation = raw_->Run({"HGET", kPrefix + "generation", "gen"});
  ASSERT_TRUE(raw_->Run({"SET", kPrefix + "loaded", std::to_string(kEpoch) + "@" + generation}) ==
              "OK");
  ASSERT_EQ(Reserve(Request("x", "x1", 1)).answer, ReserveAnswer::kAccepted);
  ASSERT_EQ(Reserve(Request("y", "y1", 2)).answer, ReserveAnswer::kAccepted);
  std::vector<ReservationEvent> events;
  ASSERT_TRUE(cache_->ReadEvents(kActivity, kSku, "c", 10, &events).ok());
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].cache_epoch, kEpoch);
  EXPECT_EQ(events[0].cache_seq, 1);
  EXPECT_EQ(events[1].cache_seq, 2);
}

TEST_F(RedisReservationCacheTest, PreheatLoadsManyBuyers) {
  std::vector<std::string> buyers;
  for (int i = 0; i < 25000; ++i) buyers.push_back("buyer-" + std::to_string(i));
  Preheat(10, buyers);
  EXPECT_EQ(raw_->Int({"SCARD", kPrefix + "buyers"}), 25000);
  EXPECT_EQ(Reserve(Request("buyer-24999", "q", 1)).answer, ReserveAnswer::kAlreadyJoined);
  EXPECT_EQ(Reserve(Request("newcomer", "q2", 2)).answer, ReserveAnswer::kAccepted);
}

TEST_F(RedisReservationCacheTest, NotPreheatedIsCacheMissing) {
  ReserveResult result = Reserve(Request("eve", "e1", 1));
  EXPECT_EQ(result.answer, ReserveAnswer::kCacheMissing);
  ReleaseOutcome released = ReleaseOutcome::kReleased;
  ASSERT_TRUE(cache_->Release(kActivity, kSku, "1", kEpoch, &released).ok());
  EXPECT_EQ(released, ReleaseOutcome::kNotCurrent);
  EXPECT_FALSE(Snap().present);
  // Nothing recorded but the activity's generation key, made for this server.
  EXPECT_EQ(raw_->Run({"KEYS", "*"}), kPrefix + "generation");
}

TEST_F(RedisReservationCacheTest, ReleaseIsIdempotentByKey) {
  Preheat(2);
  ASSERT_EQ(Reserve(Request("u1", "r1", 11)).answer, ReserveAnswer::kAccepted);
  ASSERT_EQ(Reserve(Request("u2", "r2", 12)).answer, ReserveAnswer::kAccepted);
  EXPECT_EQ(Snap().stock, 0);
  ReleaseOutcome released = ReleaseOutcome::kReleased;
  ASSERT_TRUE(cache_->Release(kActivity, kSku, "11", kEpoch, &released).ok());
  EXPECT_EQ(released, ReleaseOutcome::kReleased);
  ASSERT_TRUE(cache_->Release(kActivity, kSku, "11", kEpoch, &released).ok());
  EXPECT_EQ(released, ReleaseOutcome::kAlreadyReleased);
  EXPECT_EQ(Snap().stock, 1);
  ASSERT_TRUE(cache_->Release(kActivity, kSku, "r:r2", kEpoch, &released).ok());
  EXPECT_EQ(released, ReleaseOutcome::kReleased);
  EXPECT_EQ(Snap().stock, 2);
  // Released units are sold again; the buyers who released stay joined.
  EXPECT_EQ(Reserve(Request("u1", "r1b", 13)).answer, ReserveAnswer::kAlreadyJoined);
  EXPECT_EQ(Reserve(Request("u3", "r3", 14)).answer, ReserveAnswer::kAccepted);
  EXPECT_EQ(Snap().stock, 1);
  EXPECT_EQ(Snap().reservations, 3);
  EXPECT_EQ(cache_->Release(kActivity, kSku, "", kEpoch, &released).code(),
            StatusCode::INVALID_ARGUMENT);
}

TEST_F(RedisReservationCacheTest, MalformedKeysAreErrorsAndNothingIsWritten) {
  Preheat(3);
  ASSERT_EQ(raw_->Run({"SET", kPrefix + "stock", "three"}), "OK");
  ReserveResult result;
  Status status = cache_->Reserve(Request("mallory", "m1", 1), &result);
  EXPECT_EQ(status.code(), StatusCode::INTERNAL) << status;
  EXPECT_NE(status.message().find("does not hold an integer"), std::string::npos) << status;
  EXPECT_EQ(raw_->Int({"EXISTS", kPrefix + "requests", kPrefix + "buyers", kPrefix + "accepted"}),
            0);
  EXPECT_EQ(raw_->Int({"XLEN", kPrefix + "orders"}), 0);
  ReleaseOutcome released = ReleaseOutcome::kReleased;
  status = cache_->Release(kActivity, kSku, "1", kEpoch, &released);
  EXPECT_EQ(status.code(), StatusCode::INTERNAL) << status;
  EXPECT_EQ(raw_->Int({"EXISTS", kPrefix + "released"}), 0);
  CacheSnapshot snapshot;
  EXPECT_EQ(cache_->Snapshot(kActivity, kSku, &snapshot).code(), StatusCode::INTERNAL);

  // A key of the wrong type.
  ASSERT_EQ(raw_->Run({"SET", kPrefix + "stock", "3"}), "OK");
  ASSERT_EQ(raw_->Run({"SET", kPrefix + "buyers", "not a set"}), "OK");
  status = cache_->Reserve(Request("mallory", "m1", 1), &result);
  EXPECT_EQ(status.code(), StatusCode::INTERNAL) << status;
  EXPECT_NE(status.message().find("WRONGTYPE"), std::string::npos) << status;
  EXPECT_EQ(raw_->Run({"GET", kPrefix + "stock"}), "3");
  EXPECT_EQ(raw_->Int({"EXISTS", kPrefix + "requests"}), 0);

  // A load of keys no reload fenced for it: nothing loaded.
  bool raced = false;
  status = cache_->Preheat(Load(5, {"a"}, 8, 1), &raced);
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_TRUE(raced);
  EXPECT_EQ(
      raw_->Int({"EXISTS", "seckill:{8:1}:loaded", "seckill:{8:1}:buyers", "seckill:{8:1}:orders"}),
      0);
  // Kept keys of the wrong type refuse the load, writing nothing.
  ASSERT_EQ(raw_->Run({"SET", "seckill:{8:1}:requests", "not a hash"}), "OK");
  bool fenced = false;
  ASSERT_TRUE(cache_->Fence(8, 1, "", kEpoch, 1000, &fenced).ok());
  ASSERT_TRUE(fenced);
  CacheLoad kept = Load(5, {"a"}, 8, 1);
  kept.keep_requests = true;
  status = cache_->Preheat(kept, &raced);
  EXPECT_EQ(status.code(), StatusCode::INTERNAL) << status;
  EXPECT_NE(status.message().find("WRONGTYPE"), std::string::npos) << status;
  EXPECT_EQ(raw_->Int({"EXISTS", "seckill:{8:1}:stock", "seckill:{8:1}:orders"}), 0);

  // Refused before Redis.
  EXPECT_EQ(cache_->Reserve(Request("", "m2", 1), &result).code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(cache_->Reserve(Request("u", "", 1), &result).code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(cache_->Preheat(Load(-1, {}, 9, 1), &raced).code(), StatusCode::INVALID_ARGUMENT);
}

TEST_F(RedisReservationCacheTest, ConsumersReadClaimAckAndRequeue) {
  Preheat(5);
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(
        Reserve(Request("user:" + std::to_string(i), "q" + std::to_string(i), 700 + i, 1000 + i))
            .answer,
        ReserveAnswer::kAccepted);
  }
  std::vector<ReservationEvent> read;
  ASSERT_TRUE(cache_->ReadEvents(kActivity, kSku, "c1", 10, &read).ok());
  ASSERT_EQ(read.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_FALSE(read[i].event_id.empty());
    EXPECT_EQ(read[i].activity_id, kActivity);
    EXPECT_EQ(read[i].sku_id, kSku);
    EXPECT_EQ(read[i].user_id, "user:" + std::to_string(i));  // ':' in a user id survives
    EXPECT_EQ(read[i].request_id, "q" + std::to_string(i));
    EXPECT_EQ(read[i].order_no, 700 + i);
    EXPECT_EQ(read[i].reserved_ms, 1000 + i);
  }
  std::vector<ReservationEvent> none;
  ASSERT_TRUE(cache_->ReadEvents(kActivity, kSku, "c1", 10, &none).ok());
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(Snap().queue_pending, 3);

  // Not idle long enough yet.
  std::vector<ReservationEvent> claimed;
  ASSERT_TRUE(cache_->ClaimStale(kActivity, kSku, "c2", 60000, 10, &claimed).ok());
  EXPECT_TRUE(claimed.empty());
  std::this_thread::sleep_for(120ms);
  ASSERT_TRUE(cache_->ClaimStale(kActivity, kSku, "c2", 100, 2, &claimed).ok());
  ASSERT_EQ(claimed.size(), 2u);
  EXPECT_EQ(claimed[0].event_id, read[0].event_id);
  EXPECT_EQ(claimed[0].request_id, "q0");
  std::vector<ReservationEvent> rest;
  ASSERT_TRUE(cache_->ClaimStale(kActivity, kSku, "c2", 100, 10, &rest).ok());
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(rest[0].event_id, read[2].event_id);
  // Now owned by c2 and fresh again.
  ASSERT_TRUE(cache_->ClaimStale(kActivity, kSku, "c3", 100, 10, &none).ok());
  EXPECT_TRUE(none.empty());

  ASSERT_TRUE(cache_->Ack(kActivity, kSku, {claimed[0].event_id, claimed[1].event_id}).ok());
  EXPECT_EQ(Snap().queue_pending, 1);
  ASSERT_TRUE(cache_->Ack(kActivity, kSku, {rest[0].event_id}).ok());
  EXPECT_EQ(Snap().queue_pending, 0);
  ASSERT_TRUE(cache_->Ack(kActivity, kSku, {}).ok());

  // The reconciler re-drives a reservation: a new entry with the same fields.
  ASSERT_TRUE(cache_->Requeue(read[1]).ok());
  std::vector<ReservationEvent> redriven;
  ASSERT_TRUE(cache_->ReadEvents(kActivity, kSku, "c1", 10, &redriven).ok());
  ASSERT_EQ(redriven.size(), 1u);
  EXPECT_NE(redriven[0].event_id, read[1].event_id);
  EXPECT_EQ(redriven[0].user_id, read[1].user_id);
  EXPECT_EQ(redriven[0].request_id, read[1].request_id);
  EXPECT_EQ(redriven[0].order_no, read[1].order_no);
  EXPECT_EQ(redriven[0].reserved_ms, read[1].reserved_ms);

  EXPECT_EQ(cache_->ReadEvents(kActivity, kSku, "", 10, &none).code(),
            StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(cache_->ReadEvents(kActivity, kSku, "c1", 0, &none).code(),
            StatusCode::INVALID_ARGUMENT);
}

// An entry that is not a readable event is handed out like any other, marked, with what it
// names of its reservation, and its deliveries are counted as it is claimed again.
TEST_F(RedisReservationCacheTest, AnUnreadableEntryComesBackMarkedWithItsDeliveries) {
  Preheat(5);
  ASSERT_EQ(Reserve(Request("u", "r", 1)).answer, ReserveAnswer::kAccepted);
  const std::string orders = kPrefix + "orders";
  ASSERT_EQ(raw_->Run({"XADD", orders, "*", "activity", "7", "sku", "42", "user", "v", "request",
                       "q", "order_no", "twelve", "reserved_ms", "5"})
                .find("ERR"),
            std::string::npos);
  ASSERT_EQ(raw_->Run({"XADD", orders, "*", "note", "written by something else"}).find("ERR"),
            std::string::npos);
  std::vector<ReservationEvent> read;
  ASSERT_TRUE(cache_->ReadEvents(kActivity, kSku, "c1", 10, &read).ok());
  ASSERT_EQ(read.size(), 3u);
  EXPECT_TRUE(read[0].malformed.empty());
  EXPECT_EQ(read[0].deliveries, 1);
  EXPECT_NE(read[1].malformed.find("order_no"), std::string::npos) << read[1].malformed;
  EXPECT_EQ(read[1].user_id, "v");
  EXPECT_EQ(read[1].request_id, "q");
  EXPECT_FALSE(read[2].malformed.empty());
  EXPECT_TRUE(read[2].user_id.empty());

  for (int64_t delivery = 2; delivery <= 3; ++delivery) {
    std::vector<ReservationEvent> claimed;
    ASSERT_TRUE(cache_->ClaimStale(kActivity, kSku, "c2", 0, 10, &claimed).ok());
    ASSERT_EQ(claimed.size(), 3u);
    for (const ReservationEvent& event : claimed) EXPECT_EQ(event.deliveries, delivery);
    EXPECT_EQ(claimed[1].malformed, read[1].malformed);
  }
}

TEST_F(RedisReservationCacheTest, ADeadLetterAcknowledgesAndCopiesTheEventOnce) {
  Preheat(5);
  ASSERT_EQ(Reserve(Request("u", "r", 31)).answer, ReserveAnswer::kAccepted);
  std::vector<ReservationEvent> read;
  ASSERT_TRUE(cache_->ReadEvents(kActivity, kSku, "c1", 10, &read).ok());
  ASSERT_EQ(read.size(), 1u);
  bool moved = false;
  ASSERT_TRUE(
      cache_->DeadLetter(kActivity, kSku, read[0].event_id, "write_failed", "boom", 10, &moved)
          .ok());
  EXPECT_TRUE(moved);
  EXPECT_EQ(Snap().queue_pending, 0);
  const std::string letters = kPrefix + "dead_letters";
  EXPECT_EQ(raw_->Int({"XLEN", letters}), 1);
  const std::string letter = raw_->Run({"XRANGE", letters, "-", "+"});
  EXPECT_NE(letter.find("reason,write_failed,detail,boom,event_id," + read[0].event_id),
            std::string::npos)
      << letter;
  EXPECT_NE(letter.find(R"("user","u","request","r","order_no","31")"), std::string::npos)
      << letter;

  // Not pending any more: nothing is written twice.
  ASSERT_TRUE(
      cache_->DeadLetter(kActivity, kSku, read[0].event_id, "write_failed", "boom", 10, &moved)
          .ok());
  EXPECT_FALSE(moved);
  EXPECT_EQ(raw_->Int({"XLEN", letters}), 1);
  EXPECT_EQ(cache_->DeadLetter(kActivity, kSku, "", "write_failed", "", 10, &moved).code(),
            StatusCode::INVALID_ARGUMENT);
}

// Trimming removes acknowledged entries only: the oldest pending one and every undelivered one
// stay, and the backlog reads the same before and after.
TEST_F(RedisReservationCacheTest, TrimRemovesOnlyAcknowledgedEntries) {
  Preheat(20);
  for (int i = 0; i < 6; ++i) {
    const std::string n = std::to_string(i);
    ASSERT_EQ(Reserve(Request("u" + n, "r" + n, i + 1)).answer, ReserveAnswer::kAccepted);
  }
  const std::string orders = kPrefix + "orders";
  std::vector<ReservationEvent> read;
  ASSERT_TRUE(cache_->ReadEvents(kActivity, kSku, "c1", 4, &read).ok());
  ASSERT_EQ(read.size(), 4u);
  ASSERT_TRUE(cache_->Ack(kActivity, kSku, {read[1].event_id, read[2].event_id}).ok());
  int64_t removed = -1;
  ASSERT_TRUE(cache_->TrimAcknowledged(kActivity, kSku, &removed).ok());
  EXPECT_EQ(removed, 0);  // the first entry is still pending
  ASSERT_TRUE(cache_->Ack(kActivity, kSku, {read[0].event_id}).ok());
  ASSERT_TRUE(cache_->TrimAcknowledged(kActivity, kSku, &removed).ok());
  EXPECT_EQ(removed, 3);
  EXPECT_EQ(raw_->Int({"XLEN", orders}), 3);
  CacheSnapshot snapshot = Snap();
  EXPECT_EQ(snapshot.queue_pending, 1);
  EXPECT_EQ(snapshot.queue_undelivered, 2);

  // The pending one can still be claimed, the undelivered ones still read.
  std::vector<ReservationEvent> claimed;
  ASSERT_TRUE(cache_->ClaimStale(kActivity, kSku, "c2", 0, 10, &claimed).ok());
  ASSERT_EQ(claimed.size(), 1u);
  EXPECT_EQ(claimed[0].request_id, "r3");
  ASSERT_TRUE(cache_->Ack(kActivity, kSku, {claimed[0].event_id}).ok());
  std::vector<ReservationEvent> rest;
  ASSERT_TRUE(cache_->ReadEvents(kActivity, kSku, "c1", 10, &rest).ok());
  ASSERT_EQ(rest.size(), 2u);
  ASSERT_TRUE(cache_->Ack(kActivity, kSku, {rest[0].event_id, rest[1].event_id}).ok());
  ASSERT_TRUE(cache_->TrimAcknowledged(kActivity, kSku, &removed).ok());
  EXPECT_EQ(removed, 2);
  EXPECT_EQ(raw_->Int({"XLEN", orders}), 1);  // the last delivered entry marks the position
  snapshot = Snap();
  EXPECT_EQ(snapshot.queue_pending, 0);
  EXPECT_EQ(snapshot.queue_undelivered, 0);

  ASSERT_EQ(Reserve(Request("u9", "r9", 99)).answer, ReserveAnswer::kAccepted);
  EXPECT_EQ(Snap().queue_undelivered, 1);
  ASSERT_TRUE(cache_->TrimAcknowledged(kActivity, kSku, &removed).ok());
  EXPECT_EQ(removed, 0);
  ASSERT_TRUE(cache_->ReadEvents(kActivity, kSku, "c1", 10, &rest).ok());
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(rest[0].request_id, "r9");
  // No stream: nothing to trim.
  ASSERT_TRUE(cache_->TrimAcknowledged(kActivity + 1, kSku, &removed).ok());
  EXPECT_EQ(removed, 0);
}

TEST_F(RedisReservationCacheTest, TheRedriveLeaseHasOneHolderUntilItLapses) {
  bool held = false;
  ASSERT_TRUE(cache_->HoldRedriveLease(kActivity, kSku, "a", 60000, &held).ok());
  EXPECT_TRUE(held);
  ASSERT_TRUE(cache_->HoldRedriveLease(kActivity, kSku, "b", 60000, &held).ok());
  EXPECT_FALSE(held);
  ASSERT_TRUE(cache_->HoldRedriveLease(kActivity, kSku, "a", 100, &held).ok());
  EXPECT_TRUE(held);  // renewed, now with a short lifetime
  EXPECT_GT(raw_->Int({"PTTL", kPrefix + "redrive_lease"}), 0);
  // Once a's lease lapses (it is not renewed), b takes it.
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  for (;;) {
    ASSERT_TRUE(cache_->HoldRedriveLease(kActivity, kSku, "b", 60000, &held).ok());
    if (held || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_TRUE(held);
  ASSERT_TRUE(cache_->HoldRedriveLease(kActivity, kSku, "a", 60000, &held).ok());
  EXPECT_FALSE(held);
  EXPECT_EQ(cache_->HoldRedriveLease(kActivity, kSku, "", 100, &held).code(),
            StatusCode::INVALID_ARGUMENT);
}

TEST_F(RedisReservationCacheTest, ReadEventsRecreatesALostGroupOnAnExistingStream) {
  Preheat(5);
  ASSERT_EQ(Reserve(Request("u", "r", 1)).answer, ReserveAnswer::kAccepted);
  ASSERT_EQ(raw_->Run({"XGROUP", "DESTROY", kPrefix + "orders", "order-writers"}), "1");
  EXPECT_EQ(Snap().queue_pending, 0);
  std::vector<ReservationEvent> events;
  ASSERT_TRUE(cache_->ClaimStale(kActivity, kSku, "c", 0, 10, &events).ok());
  EXPECT_TRUE(events.empty());
  ASSERT_TRUE(cache_->ReadEvents(kActivity, kSku, "c", 10, &events).ok());
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].request_id, "r");
  // No stream at all: no events, nothing created.
  ASSERT_TRUE(cache_->ReadEvents(kActivity + 1, kSku, "c", 10, &events).ok());
  EXPECT_TRUE(events.empty());
  EXPECT_EQ(raw_->Int({"EXISTS", "seckill:{8:42}:orders"}), 0);
  ASSERT_TRUE(cache_->Ack(kActivity + 1, kSku, {"1-0"}).ok());
}

TEST_F(RedisReservationCacheTest, ScriptsAreReloadedAfterScriptFlush) {
  Preheat(5);
  ASSERT_EQ(raw_->Run({"SCRIPT", "FLUSH"}), "OK");
  EXPECT_EQ(Reserve(Request("u", "r", 1)).answer, ReserveAnswer::kAccepted);
  ASSERT_EQ(raw_->Run({"SCRIPT", "FLUSH"}), "OK");
  ReleaseOutcome released = ReleaseOutcome::kReleased;
  ASSERT_TRUE(cache_->Release(kActivity, kSku, "1", kEpoch, &released).ok());
  EXPECT_EQ(released, ReleaseOutcome::kReleased);
}

TEST_F(RedisReservationCacheTest, ListsManyReservationsAcrossScanPages) {
  constexpr int kCount = 5000;
  Preheat(kCount);
  for (int i = 0; i < kCount; ++i) {
    ASSERT_EQ(Reserve(Request("u" + std::to_string(i), "r" + std::to_string(i), i + 1)).answer,
              ReserveAnswer::kAccepted);
  }
  // Answers that are not acceptances are left out.
  ASSERT_EQ(Reserve(Request("late", "late", 0)).answer, ReserveAnswer::kSoldOut);
  std::vector<ReservationEvent> listed;
  ASSERT_TRUE(cache_->ListReservations(kActivity, kSku, &listed).ok());
  ASSERT_EQ(listed.size(), static_cast<size_t>(kCount));
  for (int i = 0; i < kCount; ++i) {
    EXPECT_EQ(listed[i].order_no, i + 1);
    EXPECT_EQ(listed[i].request_id, "r" + std::to_string(i));
    EXPECT_EQ(listed[i].user_id, "u" + std::to_string(i));
  }
  EXPECT_EQ(Snap().reservations, kCount);
}

TEST_F(RedisReservationCacheTest, TimedOutCallIsUnavailableAndSafeToRetry) {
  Preheat(5);
  std::unique_ptr<ReservationCache> fast;
  storage::RedisOptions options = Options();
  options.timeout_ms = 200;
  ASSERT_TRUE(ConnectRedisReservationCache(options, &fast).ok());
  ASSERT_EQ(raw_->Run({"CLIENT", "PAUSE", "700", "ALL"}), "OK");
  ReserveResult result;
  const auto started = std::chrono::steady_clock::now();
  Status status = fast->Reserve(Request("slow", "s1", 1), &result);
  EXPECT_EQ(status.code(), StatusCode::UNAVAILABLE) << status;
  EXPECT_LT(std::chrono::steady_clock::now() - started, 600ms);
  // Whether the timed-out call took effect is unknown; retrying with its request id after the
  // pause gives the one answer, and the unit is taken once.
  std::this_thread::sleep_for(700ms);
  status = fast->Reserve(Request("slow", "s1", 1), &result);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(result.answer, ReserveAnswer::kAccepted);
  EXPECT_EQ(result.order_no, 1);
  CacheSnapshot snapshot;
  ASSERT_TRUE(fast->Snapshot(kActivity, kSku, &snapshot).ok());
  EXPECT_EQ(snapshot.stock, 4);
  EXPECT_EQ(snapshot.reservations, 1);
}

TEST(RedisReservationCacheDataLossTest, RestartEmptyLeavesTheActivityMissing) {
  RedisServer server;
  ASSERT_TRUE(server.Start());
  std::unique_ptr<ReservationCache> cache;
  ASSERT_TRUE(
      ConnectRedisReservationCache(
          storage::RedisOptions{.host = server.host(), .port = server.port(), .pool_size = 2},
          &cache)
          .ok());
  ASSERT_NO_FATAL_FAILURE(FenceAndLoad(*cache, Load(5)));
  ReserveResult result;
  ASSERT_TRUE(cache->Reserve(Request("u", "r", 1), &result).ok());
  ASSERT_EQ(result.answer, ReserveAnswer::kAccepted);

  ASSERT_TRUE(server.RestartEmpty());
  // The pooled connection died with the old server and the new one has no scripts: both are
  // handled without a failed call.
  Status status = cache->Reserve(Request("u2", "r2", 2), &result);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(result.answer, ReserveAnswer::kCacheMissing);
  // The replay record is gone with the data too.
  ASSERT_TRUE(cache->Reserve(Request("u", "r", 1), &result).ok());
  EXPECT_EQ(result.answer, ReserveAnswer::kCacheMissing);
  ReleaseOutcome released = ReleaseOutcome::kReleased;
  ASSERT_TRUE(cache->Release(kActivity, kSku, "1", kEpoch, &released).ok());
  EXPECT_EQ(released, ReleaseOutcome::kNotCurrent);
  CacheSnapshot snapshot;
  ASSERT_TRUE(cache->Snapshot(kActivity, kSku, &snapshot).ok());
  EXPECT_FALSE(snapshot.present);
  EXPECT_EQ(snapshot.reservations, 0);
  std::vector<ReservationEvent> events;
  ASSERT_TRUE(cache->ReadEvents(kActivity, kSku, "c", 10, &events).ok());
  EXPECT_TRUE(events.empty());
  RawRedis raw(server);
  EXPECT_EQ(raw.Run({"KEYS", "*"}), kPrefix + "generation");  // made anew for this server

  // Preheating again opens it from the given stock.
  ASSERT_NO_FATAL_FAILURE(FenceAndLoad(*cache, Load(4, {"u"})));
  ASSERT_TRUE(cache->Reserve(Request("u", "r", 1), &result).ok());
  EXPECT_EQ(result.answer, ReserveAnswer::kAlreadyJoined);
}

// Redis that replays its append-only file after a restart (the persistence the design asks for).
class RedisReservationCacheReplayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.Start());
    ASSERT_TRUE(
        ConnectRedisReservationCache(
            storage::RedisOptions{.host = server_.host(), .port = server_.port(), .pool_size = 2},
            &cache_)
            .ok());
    ASSERT_NO_FATAL_FAILURE(FenceAndLoad(*cache_, Load(100)));
  }

  void ReserveMany(int from, int count) {
    for (int i = from; i < from + count; ++i) {
      ReserveResult result;
      const std::string id = std::to_string(i);
      ASSERT_TRUE(
          cache_->Reserve(Request("u" + id, "r" + id, i + 1, 1700000000000, epoch_), &result).ok());
      ASSERT_EQ(result.answer, ReserveAnswer::kAccepted);
    }
  }
  // A restarted server may hold an older state of the data: the generation loaded before sells
  // no more, and a reload keeping the queue opens a new one.
  void Reload() {
    ReserveResult result;
    ASSERT_TRUE(cache_->Reserve(Request("late", "late", 999, 1700000000000, epoch_), &result).ok());
    ASSERT_EQ(result.answer, ReserveAnswer::kOtherEpoch);
    CacheLoad load = Load(100);
    load.epoch = ++epoch_;
    load.keep_requests = true;
    ASSERT_NO_FATAL_FAILURE(FenceAndLoad(*cache_, load));
  }
  // Reads up to `count` events as one writer and acknowledges them; returns how many.
  size_t ReadAndAck(int count) {
    std::vector<ReservationEvent> events;
    EXPECT_TRUE(cache_->ReadEvents(kActivity, kSku, "w", count, &events).ok());
    std::vector<std::string> ids;
    for (const ReservationEvent& e : events) ids.push_back(e.event_id);
    if (!ids.empty()) {
      EXPECT_TRUE(cache_->Ack(kActivity, kSku, ids).ok());
    }
    return events.size();
  }
  CacheSnapshot Snap() {
    CacheSnapshot snapshot;
    EXPECT_TRUE(cache_->Snapshot(kActivity, kSku, &snapshot).ok());
    return snapshot;
  }

  RedisServer server_{{.appendonly = true}};
  std::unique_ptr<ReservationCache> cache_;
  int64_t epoch_ = kEpoch;
};

// After a rewrite of the append-only file, the group's read counter Redis restores on restart
// is the one of the rewrite: its `lag` then shows delivered events as undelivered.
TEST_F(RedisReservationCacheReplayTest, EverythingDeliveredIsNoBacklogAfterARewriteAndRestart) {
  ReserveMany(0, 10);
  ASSERT_EQ(ReadAndAck(4), 4u);
  RawRedis raw(server_);
  ASSERT_EQ(raw.Run({"BGREWRITEAOF"}).find("ERR"), std::string::npos);
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (raw.Run({"INFO", "persistence"}).find("aof_rewrite_in_progress:0") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(20ms);
  }
  ASSERT_EQ(ReadAndAck(100), 6u);
  EXPECT_EQ(Snap().queue_undelivered, 0);

  ASSERT_TRUE(server_.Restart());
  CacheSnapshot snapshot = Snap();
  EXPECT_EQ(snapshot.queue_undelivered, 0);
  EXPECT_EQ(snapshot.queue_pending, 0);
  EXPECT_EQ(snapshot.reservations, 10);

  ASSERT_NO_FATAL_FAILURE(Reload());
  ReserveMany(10, 3);
  EXPECT_GE(Snap().queue_undelivered, 3);
  ASSERT_EQ(ReadAndAck(100), 3u);
  EXPECT_EQ(Snap().queue_undelivered, 0);
}

// Without a rewrite, the restored group has no read counter: Redis's lag is nil, and the
// undelivered events are counted instead of being reported as none.
TEST_F(RedisReservationCacheReplayTest, UndeliveredEventsAreCountedWhenRedisCannotTellTheLag) {
  ReserveMany(0, 10);
  ASSERT_EQ(ReadAndAck(4), 4u);
  ASSERT_TRUE(server_.Restart());
  EXPECT_EQ(Snap().queue_undelivered, 6);
  ASSERT_EQ(ReadAndAck(100), 6u);
  EXPECT_EQ(Snap().queue_undelivered, 0);
}

// Trimmed acknowledged entries do not change what the backlog reads after Redis replays its
// append-only file, with a rewrite in between (a stale lag) or without (no lag).
TEST_F(RedisReservationCacheReplayTest, ATrimmedStreamKeepsAnExactBacklogAcrossRestarts) {
  ReserveMany(0, 10);
  ASSERT_EQ(ReadAndAck(4), 4u);
  int64_t removed = 0;
  ASSERT_TRUE(cache_->TrimAcknowledged(kActivity, kSku, &removed).ok());
  EXPECT_EQ(removed, 3);
  ASSERT_TRUE(server_.Restart());
  EXPECT_EQ(Snap().queue_undelivered, 6);

  RawRedis raw(server_);
  ASSERT_EQ(raw.Run({"BGREWRITEAOF"}).find("ERR"), std::string::npos);
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (raw.Run({"INFO", "persistence"}).find("aof_rewrite_in_progress:0") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(20ms);
  }
  ASSERT_EQ(ReadAndAck(100), 6u);
  ASSERT_TRUE(cache_->TrimAcknowledged(kActivity, kSku, &removed).ok());
  EXPECT_EQ(removed, 6);
  EXPECT_EQ(Snap().queue_undelivered, 0);
  ASSERT_TRUE(server_.Restart());
  CacheSnapshot snapshot = Snap();
  EXPECT_EQ(snapshot.queue_undelivered, 0);
  EXPECT_EQ(snapshot.queue_pending, 0);

  ASSERT_NO_FATAL_FAILURE(Reload());
  ReserveMany(10, 3);
  EXPECT_GE(Snap().queue_undelivered, 3);
  ASSERT_EQ(ReadAndAck(100), 3u);
  EXPECT_EQ(Snap().queue_undelivered, 0);
}

TEST(RedisReservationCacheDataLossTest, DeadServerIsUnavailable) {
  RedisServer server;
  ASSERT_TRUE(server.Start());
  std::unique_ptr<ReservationCache> cache;
  const storage::RedisOptions options{
      .host = server.host(), .port = server.port(), .timeout_ms = 500};
  ASSERT_TRUE(ConnectRedisReservationCache(options, &cache).ok());
  server.Kill();
  ReserveResult result;
  Status status = cache->Reserve(Request("u", "r", 1), &result);
  EXPECT_EQ(status.code(), StatusCode::UNAVAILABLE) << status;
  EXPECT_NE(status.message().find(server.address()), std::string::npos) << status;

  std::unique_ptr<ReservationCache> other;
  status = ConnectRedisReservationCache(options, &other);
  EXPECT_EQ(status.code(), StatusCode::UNAVAILABLE) << status;
  EXPECT_NE(status.message().find("unreachable"), std::string::npos) << status;
  EXPECT_EQ(other, nullptr);

  // Back on the same port: the same cache object works again.
  ASSERT_TRUE(server.Start());
  CacheSnapshot snapshot;
  status = cache->Snapshot(kActivity, kSku, &snapshot);
  EXPECT_TRUE(status.ok()) << status;
}

}  // namespace
}  // namespace ferry::seckill
