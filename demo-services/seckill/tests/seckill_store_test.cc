// OrderStore behaviour over both adapters (order_store_fixture.h): activities, cache
// generations, placing orders (replay by request id, one order per user, exact stock,
// concurrency), cancellation (the unit comes back exactly once), pending cache releases, the
// counts the reconciler reads and the schema checks.

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "order_store_fixture.h"

namespace ferry::seckill {
namespace {

using namespace ferry::seckill::testing;

TEST_P(OrderStoreTest, CreatesAndReadsActivities) {
  ActivityRecord a = NewActivity(5);
  EXPECT_GT(a.activity_id, 0);
  EXPECT_FALSE(a.open);
  EXPECT_EQ(a.remaining_stock, 5);
  ActivityRecord b = NewActivity(7);
  EXPECT_NE(a.activity_id, b.activity_id);

  ActivityRecord read;
  ASSERT_TRUE(store_->GetActivity(a.activity_id, &read).ok());
  EXPECT_EQ(read.activity_id, a.activity_id);
  EXPECT_EQ(read.sku_id, kSku);
  EXPECT_EQ(read.name, "flash sale");
  EXPECT_EQ(read.initial_stock, 5);
  EXPECT_EQ(read.remaining_stock, 5);
  EXPECT_EQ(read.start_time_ms, kNow - 1000);
  EXPECT_EQ(read.end_time_ms, kNow + 3'600'000);
  EXPECT_EQ(read.price_cents, 999);
  EXPECT_EQ(read.pay_timeout_s, 30u);
  EXPECT_FALSE(read.open);

  EXPECT_EQ(store_->GetActivity(a.activity_id + 1000, &read).code(), StatusCode::NOT_FOUND);

  std::vector<ActivityRecord> open;
  ASSERT_TRUE(store_->ListOpenActivities(kNow, &open).ok());
  EXPECT_TRUE(open.empty());
  ASSERT_TRUE(store_->MarkOpen(a.activity_id).ok());
  ASSERT_TRUE(store_->MarkOpen(a.activity_id).ok());  // idempotent
  ASSERT_TRUE(store_->GetActivity(a.activity_id, &read).ok());
  EXPECT_TRUE(read.open);
  ASSERT_TRUE(store_->ListOpenActivities(kNow, &open).ok());
  ASSERT_EQ(open.size(), 1u);
  EXPECT_EQ(open[0].activity_id, a.activity_id);
  open.clear();
  // Only activities ending after the given time.
  ASSERT_TRUE(store_->ListOpenActivities(kNow + 3'600'000, &open).ok());
  EXPECT_TRUE(open.empty());
}

// A reload switches the database's generation only from the one it read: of two reloads racing,
// the second finds the switch made and changes nothing.
TEST_P(OrderStoreTest, TheGenerationSwitchIsACompareAndSet) {
  const ActivityRecord a = NewActivity(5);
  MustOrder(a, "ola");
  CacheEpochBase base;
  ASSERT_TRUE(store_->BeginCacheEpoch(a.activity_id, kSku, 0, 11, "run/repl", 0, {}, &base).ok());
  EXPECT_EQ(base.remaining_stock, 4);
  EXPECT_EQ(store_->BeginCacheEpoch(a.activity_id, kSku, 0, 12, "run/repl", 0, {}, &base).code(),
            StatusCode::FAILED_PRECONDITION);
  ActivityRecord now;
  ASSERT_TRUE(store_->GetActivity(a.activity_id, &now).ok());
  EXPECT_EQ(now.cache_epoch, 11);
  EXPECT_EQ(now.cache_server, "run/repl");
  bool known = false;
  ASSERT_TRUE(store_->KnowsCacheEpoch(a.activity_id, kSku, 12, &known).ok());
  EXPECT_FALSE(known);
  // The decisions recorded when the cache counted from zero are the base of its counts.
  EXPECT_EQ(Counts(a).decided_base, 1);
  ASSERT_TRUE(store_->BeginCacheEpoch(a.activity_id, kSku, 11, 13, "run/repl", 0, {}, &base).ok());
  MustOrder(a, "pia");
  EXPECT_EQ(Counts(a).decided_base, 1);  // kept, not recounted
}

// A reservation sequence number of a generation that an order holds already was handed out
// twice (the cache lost the reservation that had it): reported, and the order is still made
// from the database's stock, without the number.
TEST_P(OrderStoreTest, AReusedSequenceNumberIsReportedAndTheOrderStillMade) {
  const ActivityRecord a = NewActivity(5);
  CacheEpochBase base;
  ASSERT_TRUE(store_->BeginCacheEpoch(a.activity_id, kSku, 0, 21, "s", 0, {}, &base).ok());
  OrderDraft first = Draft(a, "quin", "q-1");
  first.cache_epoch = 21;
  first.cache_seq = 1;
  EXPECT_FALSE(Place(first).sequence_reused);
  EXPECT_FALSE(Place(first).sequence_reused);  // its own replay is no reuse
  OrderDraft again = Draft(a, "rex", "r-1");
  again.cache_epoch = 21;
  again.cache_seq = 1;
  const PlaceResult reused = Place(again);
  EXPECT_TRUE(reused.sequence_reused);
  EXPECT_EQ(reused.outcome, PlaceOutcome::kCreated);
  EXPECT_TRUE(Place(again).sequence_reused);  // and again on a replay
  EXPECT_EQ(Remaining(a), 3);
  EXPECT_EQ(Counts(a).cache_seq, 1);
}

// Decisions that take no unit (already joined, failed) name the generation read under the stock
// row's lock, which a reload's switch holds too: their give-back goes to the generation that
// does not count the unit yet.
TEST_P(OrderStoreTest, DecisionsThatTakeNoUnitNameTheGenerationOfTheirGiveBack) {
  const ActivityRecord a = NewActivity(5);
  CacheEpochBase base;
  ASSERT_TRUE(store_->BeginCacheEpoch(a.activity_id, kSku, 0, 31, "s", 0, {}, &base).ok());
  MustOrder(a, "sam");
  ASSERT_TRUE(store_->BeginCacheEpoch(a.activity_id, kSku, 31, 32, "s", 0, {}, &base).ok());
  const PlaceResult joined = Place(Draft(a, "sam", "sam-2"));
  EXPECT_EQ(joined.outcome, PlaceOutcome::kAlreadyJoined);
  EXPECT_EQ(joined.cache_epoch, 32);
  RequestRecord decided;
  int64_t epoch = 0;
  ASSERT_TRUE(
      store_
          ->FailRequest({a.activity_id, kSku, "tim", "tim-1"}, kReasonWriteFailed, &decided, &epoch)
          .ok());
  EXPECT_EQ(epoch, 32);
}

TEST_P(OrderStoreTest, PlaceOrderCreatesAndReplaysByRequestId) {
  const ActivityRecord a = NewActivity(3);
  const OrderDraft first = Draft(a, "alice", "r-1");
  const PlaceResult created = Place(first);
  EXPECT_EQ(created.outcome, PlaceOutcome::kCreated);
  EXPECT_FALSE(created.replayed);
  EXPECT_EQ(created.order_no, first.order_no);
  EXPECT_EQ(Remaining(a), 2);

  // The same request again (another delivery, with another order number drawn): the first
  // decision, and no second unit taken.
  OrderDraft again = first;
  again.order_no = next_order_++;
  const PlaceResult replay = Place(again);
  EXPECT_EQ(replay.outcome, PlaceOutcome::kCreated);
  EXPECT_TRUE(replay.replayed);
  EXPECT_EQ(replay.order_no, first.order_no);
  EXPECT_EQ(Remaining(a), 2);

  OrderRecord order;
  ASSERT_TRUE(store_->GetOrder(first.order_no, &order).ok());
  EXPECT_EQ(order.order_no, first.order_no);
  EXPECT_EQ(order.activity_id, a.activity_id);
  EXPECT_EQ(order.sku_id, kSku);
  EXPECT_EQ(order.user_id, "alice");
  EXPECT_EQ(order.request_id, "r-1");
  EXPECT_EQ(order.state, OrderState::kUnpaid);
  EXPECT_EQ(order.created_ms, kNow);
  EXPECT_EQ(order.pay_deadline_ms, first.pay_deadline_ms);
  EXPECT_EQ(store_->GetOrder(again.order_no, &order).code(), StatusCode::NOT_FOUND);

  RequestRecord request;
  ASSERT_TRUE(store_->GetRequest({.request_id = "r-1"}, &request).ok());
  EXPECT_TRUE(request.created);
  EXPECT_EQ(request.order_no, first.order_no);
  EXPECT_EQ(store_->GetRequest({.request_id = "r-unknown"}, &request).code(),
            StatusCode::NOT_FOUND);

  const StoreCounts counts = Counts(a);
  EXPECT_EQ(counts.orders_unpaid, 1);
  EXPECT_EQ(counts.requests_created, 1);
  EXPECT_EQ(counts.requests_failed, 0);
}

// The idempotency key is (user, activity, sku, request id), compared byte for byte on both
// databases: another buyer's id, or one's own id in another activity, is a purchase of its own.
TEST_P(OrderStoreTest, ARequestIdIsScopedByUserAndActivityAndComparedExactly) {
  const ActivityRecord a = NewActivity(3);
  const ActivityRecord b = NewActivity(1);
  const PlaceResult bob_upper = Place(Draft(a, "Bob", "r-1"));
  ASSERT_EQ(bob_upper.outcome, PlaceOutcome::kCreated);
  for (const std::string user : {"bob", "Bob "}) {
    const PlaceResult other = Place(Draft(a, user, "r-1"));
    EXPECT_EQ(other.outcome, PlaceOutcome::kCreated) << "'" << user << "'";
    EXPECT_FALSE(other.replayed) << "'" << user << "'";
    EXPECT_NE(other.order_no, bob_upper.order_no) << "'" << user << "'";
  }
  EXPECT_EQ(Remaining(a), 0);
  const PlaceResult in_b = Place(Draft(b, "Bob", "r-1"));
  EXPECT_EQ(in_b.outcome, PlaceOutcome::kCreated);
  EXPECT_FALSE(in_b.replayed);
  EXPECT_EQ(Remaining(b), 0);
  // Sold out now: the same id from yet another buyer is refused, not replayed as accepted.
  const PlaceResult late = Place(Draft(a, "BOB", "r-1"));
  EXPECT_EQ(late.outcome, PlaceOutcome::kSoldOut);
  EXPECT_FALSE(late.replayed);

  RequestRecord request;
  ASSERT_TRUE(store_->GetRequest({a.activity_id, kSku, "Bob", "r-1"}, &request).ok());
  EXPECT_EQ(request.order_no, bob_upper.order_no);
  ASSERT_TRUE(store_->GetRequest({a.activity_id, kSku, "bob", "r-1"}, &request).ok());
  OrderRecord order;
  ASSERT_TRUE(store_->GetOrder(request.order_no, &order).ok());
  EXPECT_EQ(order.user_id, "bob");
  ASSERT_TRUE(store_->GetRequest({b.activity_id, kSku, "Bob", "r-1"}, &request).ok());
  EXPECT_EQ(request.order_no, in_b.order_no);
  ASSERT_TRUE(store_->GetRequest({.user_id = "BOB", .request_id = "r-1"}, &request).ok());
  EXPECT_EQ(request.reason, kReasonSoldOut);
  // Several purchases share the id: an unscoped lookup must not pick one of them.
  EXPECT_EQ(store_->GetRequest({.request_id = "r-1"}, &request).code(),
            StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(store_->GetRequest({.user_id = "Bob", .request_id = "r-1"}, &request).code(),
            StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(store_->GetRequest({a.activity_id, kSku, "bob ", "r-1"}, &request).code(),
            StatusCode::NOT_FOUND);
  EXPECT_EQ(Counts(a).users_with_two_orders, 0);
}

TEST_P(OrderStoreTest, SameUserWithANewRequestIsAlreadyJoined) {
  const ActivityRecord a = NewActivity(3);
  const int64_t order_no = MustOrder(a, "bob");
  const PlaceResult joined = Place(Draft(a, "bob", "bob-2"));
  EXPECT_EQ(joined.outcome, PlaceOutcome::kAlreadyJoined);
  EXPECT_FALSE(joined.replayed);
  EXPECT_EQ(Remaining(a), 2);

  const PlaceResult replay = Place(Draft(a, "bob", "bob-2"));
  EXPECT_EQ(replay.outcome, PlaceOutcome::kAlreadyJoined);
  EXPECT_TRUE(replay.replayed);
  EXPECT_EQ(Remaining(a), 2);

  RequestRecord request;
  ASSERT_TRUE(store_->GetRequest({.request_id = "bob-2"}, &request).ok());
  EXPECT_FALSE(request.created);
  EXPECT_EQ(request.reason, "already_joined");
  // The first request still names the order.
  ASSERT_TRUE(store_->GetRequest({.request_id = RequestOf(a, "bob")}, &request).ok());
  EXPECT_TRUE(request.created);
  EXPECT_EQ(request.order_no, order_no);

  const StoreCounts counts = Counts(a);
  EXPECT_EQ(counts.orders_unpaid, 1);
  EXPECT_EQ(counts.requests_created, 1);
  EXPECT_EQ(counts.requests_failed, 1);
  EXPECT_EQ(counts.users_with_two_orders, 0);
}

// A request the order writer gave up on is decided FAILED without taking stock; a decision made
// before is kept, and a later PlaceOrder of the request replays the failure.
TEST_P(OrderStoreTest, AFailedRequestTakesNoStockAndIsReplayed) {
  const ActivityRecord a = NewActivity(3);
  const RequestScope scope{a.activity_id, a.sku_id, "eve", "eve-1"};
  RequestRecord decided = Fail(scope, kReasonWriteFailed);
  EXPECT_FALSE(decided.created);
  EXPECT_EQ(decided.reason, kReasonWriteFailed);
  decided = Fail(scope, kReasonUnparsable);
  EXPECT_EQ(decided.reason, kReasonWriteFailed);  // the first decision stands
  RequestRecord read;
  ASSERT_TRUE(store_->GetRequest(scope, &read).ok());
  EXPECT_FALSE(read.created);
  EXPECT_EQ(read.reason, kReasonWriteFailed);
  EXPECT_EQ(Remaining(a), 3);

  const PlaceResult replay = Place(Draft(a, "eve", "eve-1"));
  EXPECT_TRUE(replay.replayed);
  EXPECT_NE(replay.outcome, PlaceOutcome::kCreated);
  EXPECT_EQ(Remaining(a), 3);
  EXPECT_EQ(Counts(a).orders_unpaid, 0);

  // A request that has its order keeps it.
  const int64_t order_no = MustOrder(a, "fay");
  decided = Fail({a.activity_id, a.sku_id, "fay", RequestOf(a, "fay")}, kReasonWriteFailed);
  EXPECT_TRUE(decided.created);
  EXPECT_EQ(decided.order_no, order_no);
  EXPECT_EQ(Remaining(a), 2);

  int64_t epoch = 0;
  EXPECT_EQ(store_->FailRequest(scope, "", &decided, &epoch).code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(store_->FailRequest(scope, std::string(33, 'x'), &decided, &epoch).code(),
            StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(
      store_->FailRequest({a.activity_id, a.sku_id, "", "r"}, kReasonWriteFailed, &decided, &epoch)
          .code(),
      StatusCode::INVALID_ARGUMENT);
}

TEST_P(OrderStoreTest, SoldOutAtZeroWithExactStock) {
  const ActivityRecord a = NewActivity(3);
  for (const char* user : {"u1", "u2", "u3"}) MustOrder(a, user);
  EXPECT_EQ(Remaining(a), 0);

  const PlaceResult sold_out = Place(Draft(a, "u4", "u4-1"));
  EXPECT_EQ(sold_out.outcome, PlaceOutcome::kSoldOut);
  EXPECT_FALSE(sold_out.replayed);
  EXPECT_EQ(Remaining(a), 0);
  const PlaceResult replay = Place(Draft(a, "u4", "u4-1"));
  EXPECT_EQ(replay.outcome, PlaceOutcome::kSoldOut);
  EXPECT_TRUE(replay.replayed);
  EXPECT_EQ(Place(Draft(a, "u5", "u5-1")).outcome, PlaceOutcome::kSoldOut);
  EXPECT_EQ(Remaining(a), 0);

  RequestRecord request;
  ASSERT_TRUE(store_->GetRequest({.request_id = "u4-1"}, &request).ok());
  EXPECT_FALSE(request.created);
  EXPECT_EQ(request.reason, "sold_out");

  const StoreCounts counts = Counts(a);
  EXPECT_EQ(counts.remaining_stock, 0);
  EXPECT_EQ(counts.orders_unpaid, 3);
  EXPECT_EQ(counts.requests_created, 3);
  EXPECT_EQ(counts.requests_failed, 2);

  // A sold-out request stays sold out even after a unit comes back: the same request always
  // gets the same answer.
  std::vector<std::string> buyers;
  ASSERT_TRUE(store_->ListBuyers(a.activity_id, a.sku_id, &buyers).ok());
  std::sort(buyers.begin(), buyers.end());
  EXPECT_EQ(buyers, (std::vector<std::string>{"u1", "u2", "u3"}));
  CancelResult cancelled;
  RequestRecord u1;
  ASSERT_TRUE(store_->GetRequest({.request_id = RequestOf(a, "u1")}, &u1).ok());
  cancelled = Cancel(u1.order_no);
  ASSERT_TRUE(cancelled.cancelled);
  EXPECT_EQ(Remaining(a), 1);
  EXPECT_EQ(Place(Draft(a, "u4", "u4-1")).outcome, PlaceOutcome::kSoldOut);
  EXPECT_EQ(Place(Draft(a, "u4", "u4-2")).outcome, PlaceOutcome::kCreated);
  EXPECT_EQ(Remaining(a), 0);
}

TEST_P(OrderStoreTest, ConcurrentOrdersNeverExceedStock) {
  constexpr int kThreads = 8;
  constexpr int kUsersPerThread = 40;
  constexpr int64_t kStock = 10;
  const ActivityRecord a = NewActivity(kStock);

  // Every user is tried by two threads with different request ids, so the unique user key is
  // contended as well as the stock row.
  std::atomic<int> created{0};
  std::atomic<int> errors{0};
  std::mutex mu;
  std::map<std::string, int> orders_per_user;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kUsersPerThread; ++i) {
        for (int owner : {t, (t + 1) % kThreads}) {
          const std::string user = "user-" + std::to_string(owner) + "-" + std::to_string(i);
          OrderDraft draft = Draft(a, user, user + "-via-" + std::to_string(t));
          PlaceResult result;
          Status s = store_->PlaceOrder(draft, &result);
          if (!s.ok()) {
            ++errors;
            ADD_FAILURE() << s;
            continue;
          }
          if (result.outcome == PlaceOutcome::kCreated && !result.replayed) {
            ++created;
            std::lock_guard lock(mu);
            ++orders_per_user[user];
          }
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();

  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(created.load(), kStock);
  for (const auto& [user, n] : orders_per_user) EXPECT_EQ(n, 1) << user;
  const StoreCounts counts = Counts(a);
  EXPECT_EQ(counts.remaining_stock, 0);
  EXPECT_EQ(counts.orders_unpaid, kStock);
  EXPECT_EQ(counts.users_with_two_orders, 0);
  EXPECT_EQ(counts.requests_created, kStock);
  EXPECT_EQ(counts.requests_failed, kThreads * kUsersPerThread * 2 - kStock);
}

// Count() reads several tables; orders committing between its reads must not make the stock
// and the orders disagree in one report (Reconcile would see a violation that is not there).
TEST_P(OrderStoreTest, CountsAgreeWithEachOtherWhileOrdersCommit) {
  constexpr int64_t kStock = 200;
  const ActivityRecord a = NewActivity(kStock);
  std::atomic<bool> done{false};
  std::thread buyer([&] {
    for (int i = 0; i < kStock; ++i) {
      const std::string user = "buyer-" + std::to_string(i);
      PlaceResult result;
      const Status s = store_->PlaceOrder(Draft(a, user, user), &result);
      if (!s.ok()) ADD_FAILURE() << s;
    }
    done = true;
  });
  int reports = 0;
  std::string disagreement;
  while (!done.load() && reports < 10'000 && disagreement.empty()) {
    const StoreCounts counts = Counts(a);
    ++reports;
    if (counts.remaining_stock + counts.orders_unpaid != kStock ||
        counts.requests_created != counts.orders_unpaid) {
      disagreement = "report " + std::to_string(reports) + ": stock " +
                     std::to_string(counts.remaining_stock) + ", orders " +
                     std::to_string(counts.orders_unpaid) + ", requests ordered " +
                     std::to_string(counts.requests_created);
    }
  }
  buyer.join();
  EXPECT_EQ(disagreement, "");
  EXPECT_GT(reports, 1);
  EXPECT_EQ(Counts(a).remaining_stock, 0);
}

TEST_P(OrderStoreTest, CancelReleasesTheUnitExactlyOnce) {
  const ActivityRecord a = NewActivity(2);
  const int64_t order_no = MustOrder(a, "frank");
  EXPECT_EQ(Remaining(a), 1);

  const CancelResult first = Cancel(order_no);
  EXPECT_TRUE(first.cancelled);
  EXPECT_EQ(first.state, OrderState::kCancelled);
  EXPECT_EQ(Remaining(a), 2);

  CancelResult second = Cancel(order_no);
  EXPECT_FALSE(second.cancelled);
  EXPECT_EQ(second.state, OrderState::kCancelled);
  EXPECT_EQ(Remaining(a), 2);

  EXPECT_EQ(store_->CloseOrder(123456789, {OrderState::kUnpaid}, 0, &second).code(),
            StatusCode::NOT_FOUND);

  // A cancelled buyer may not buy again in the same activity; the unit goes to someone else.
  EXPECT_EQ(Place(Draft(a, "frank", "frank-2")).outcome, PlaceOutcome::kAlreadyJoined);
  MustOrder(a, "grace");
  MustOrder(a, "heidi");
  EXPECT_EQ(Place(Draft(a, "ivan", "ivan-1")).outcome, PlaceOutcome::kSoldOut);

  const StoreCounts counts = Counts(a);
  EXPECT_EQ(counts.remaining_stock, 0);
  EXPECT_EQ(counts.orders_unpaid, 2);
  EXPECT_EQ(counts.orders_cancelled, 1);
  EXPECT_EQ(counts.users_with_two_orders, 0);
  EXPECT_EQ(counts.requests_created, 3);
}

TEST_P(OrderStoreTest, PendingCacheReleasesAreListedUntilForgotten) {
  const ActivityRecord a = NewActivity(4);
  const int64_t first = MustOrder(a, "p1");
  const int64_t second = MustOrder(a, "p2");
  MustOrder(a, "p3");

  std::vector<PendingCacheRelease> releases;
  ASSERT_TRUE(store_->ListPendingCacheReleases(10, &releases).ok());
  EXPECT_TRUE(releases.empty());

  CancelResult cancel;
  cancel = Cancel(first);
  cancel = Cancel(second);
  cancel = Cancel(second);  // no second release
  ASSERT_TRUE(store_->ListPendingCacheReleases(10, &releases).ok());
  ASSERT_EQ(releases.size(), 2u);
  std::set<int64_t> listed;
  for (const PendingCacheRelease& r : releases) {
    listed.insert(r.order_no);
    EXPECT_EQ(r.activity_id, a.activity_id);
    EXPECT_EQ(r.sku_id, kSku);
  }
  EXPECT_EQ(listed, (std::set<int64_t>{first, second}));

  releases.clear();
  ASSERT_TRUE(store_->ListPendingCacheReleases(1, &releases).ok());
  EXPECT_EQ(releases.size(), 1u);

  ASSERT_TRUE(store_->ForgetCacheRelease(first).ok());
  releases.clear();
  ASSERT_TRUE(store_->ListPendingCacheReleases(10, &releases).ok());
  ASSERT_EQ(releases.size(), 1u);
  EXPECT_EQ(releases[0].order_no, second);

  ASSERT_TRUE(store_->ForgetCacheRelease(second).ok());
  ASSERT_TRUE(store_->ForgetCacheRelease(second).ok());
  releases.clear();
  ASSERT_TRUE(store_->ListPendingCacheReleases(10, &releases).ok());
  EXPECT_TRUE(releases.empty());
  EXPECT_EQ(Remaining(a), 3);
}

TEST_P(OrderStoreTest, CountsPerActivity) {
  const ActivityRecord a = NewActivity(5);
  const ActivityRecord b = NewActivity(5);
  const int64_t paid = MustOrder(a, "c1");
  const int64_t cancelled = MustOrder(a, "c2");
  MustOrder(a, "c3");
  MustOrder(b, "c1");  // the same user in another activity is fine
  Place(Draft(a, "c1", "c1-again"));
  EXPECT_EQ(Pay(paid, "k-1", a.price_cents).effect, PaymentEffect::kPaid);
  EXPECT_EQ(Pay(paid, "k-2", a.price_cents).effect, PaymentEffect::kRefundOwed);
  CancelResult cancel;
  cancel = Cancel(cancelled);

  const StoreCounts counts = Counts(a);
  EXPECT_EQ(counts.remaining_stock, 3);
  EXPECT_EQ(counts.orders_unpaid, 1);
  EXPECT_EQ(counts.orders_paid, 1);
  EXPECT_EQ(counts.orders_cancelled, 1);
  EXPECT_EQ(counts.refunds_required, 1);
  EXPECT_EQ(counts.users_with_two_orders, 0);
  EXPECT_EQ(counts.requests_created, 3);
  EXPECT_EQ(counts.requests_failed, 1);

  const StoreCounts other = Counts(b);
  EXPECT_EQ(other.remaining_stock, 4);
  EXPECT_EQ(other.orders_unpaid, 1);
  EXPECT_EQ(other.orders_paid, 0);
  EXPECT_EQ(other.refunds_required, 0);
  EXPECT_EQ(other.requests_created, 1);
  EXPECT_EQ(other.requests_failed, 0);

  StoreCounts missing;
  EXPECT_EQ(store_->Count(a.activity_id + 1000, kSku, &missing).code(), StatusCode::NOT_FOUND);
}

// A database from before scoped request ids (seckill_request keyed by request_id alone) is
// refused with what to do, not silently kept with the old key.
TEST(OrderStoreSchemaTest, ADatabaseKeyedByRequestIdAloneIsRefused) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) /
                                    ("seckill-schema-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "old.db").string();
  {
    auto pool = SqliteOrderDatabase(path, 1);
    std::unique_ptr<storage::SqlConnectionPool::Lease> lease;
    ASSERT_TRUE(pool->Acquire(&lease).ok());
    ASSERT_TRUE((**lease)
                    .ExecuteScript("CREATE TABLE seckill_request (request_id VARCHAR(128) NOT NULL"
                                   " PRIMARY KEY, activity_id BIGINT NOT NULL, sku_id BIGINT NOT"
                                   " NULL, user_id VARCHAR(128) NOT NULL, created INT NOT NULL,"
                                   " order_no BIGINT NOT NULL, reason VARCHAR(32) NOT NULL);")
                    .ok());
  }
  SqlOrderStore store(SqliteOrderDatabase(path, 1));
  const Status s = store.Initialize();
  EXPECT_EQ(s.code(), StatusCode::FAILED_PRECONDITION) << s;
  EXPECT_NE(s.message().find("seckill_request is keyed by request id alone"), std::string::npos)
      << s;
  std::filesystem::remove_all(dir);
}

// Databases of earlier versions are refused with what to do: 2 recorded refunds owed without
// refund records, 3 stock releases without their cache generation, 4 payments from buyers'
// reports.
TEST(OrderStoreSchemaTest, ADatabaseOfAnEarlierSchemaVersionIsRefused) {
  for (const int version : {2, 3, 4}) {
    const std::filesystem::path dir =
        std::filesystem::path(::testing::TempDir()) /
        ("seckill-schema-v" + std::to_string(version) + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const std::string path = (dir / "old.db").string();
    {
      auto pool = SqliteOrderDatabase(path, 1);
      std::unique_ptr<storage::SqlConnectionPool::Lease> lease;
      ASSERT_TRUE(pool->Acquire(&lease).ok());
      ASSERT_TRUE(
          (**lease)
              .ExecuteScript("CREATE TABLE seckill_schema (version INT NOT NULL PRIMARY KEY);"
                             "INSERT INTO seckill_schema (version) VALUES (" +
                             std::to_string(version) + ");")
              .ok());
    }
    SqlOrderStore store(SqliteOrderDatabase(path, 1));
    const Status s = store.Initialize();
    EXPECT_EQ(s.code(), StatusCode::FAILED_PRECONDITION) << s;
    EXPECT_NE(
        s.message().find("schema version " + std::to_string(version) + ", this server knows 5"),
        std::string::npos)
        << s;
    EXPECT_NE(s.message().find("drop the seckill_* tables"), std::string::npos) << s;
    std::filesystem::remove_all(dir);
  }
}

INSTANTIATE_TEST_SUITE_P(Adapters, OrderStoreTest,
                         ::testing::Values(Backend::kSqlite, Backend::kMariaDb), BackendName);

// ACCEPTED on the embedded backend means the order is committed, so every connection of the
// order database waits for the disk on each commit (FULL), not only for the WAL write (NORMAL,
// which an operating-system crash can undo).
TEST(SqliteOrderDatabaseTest, EveryConnectionCommitsWithSynchronousFull) {
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / ("seckill-sync-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  {
    std::unique_ptr<storage::SqlConnectionPool> pool =
        SqliteOrderDatabase((dir / "orders.db").string(), 2);
    std::unique_ptr<storage::SqlConnectionPool::Lease> first;
    std::unique_ptr<storage::SqlConnectionPool::Lease> second;
    ASSERT_TRUE(pool->Acquire(&first).ok());
    ASSERT_TRUE(pool->Acquire(&second).ok());
    for (storage::SqlConnectionPool::Lease* lease : {first.get(), second.get()}) {
      std::vector<storage::SqlRow> rows;
      const Status s = (*lease)->Query("PRAGMA synchronous", {}, &rows);
      ASSERT_TRUE(s.ok()) << s;
      ASSERT_EQ(rows.size(), 1u);
      EXPECT_EQ(storage::AsInt(rows[0][0]), 2);  // FULL
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ferry::seckill
