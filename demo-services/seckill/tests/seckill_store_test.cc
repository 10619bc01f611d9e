// OrderStore behaviour, the same cases over both adapters: SqlOrderStore on SQLite (a file in a
// temporary directory) and on MariaDB (a real mariadbd from tests/support, one per test process,
// a fresh database per test). Activities, placing orders (replay by request id, one order per
// user, exact stock, concurrency), payments (idempotence, refunds, races with cancellation),
// cancellation (the unit comes back exactly once), expiry listing, pending cache releases and
// the counts the reconciler reads.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "mariadb_server.h"
#include "storage/order_database.h"
#include "storage/sql_order_store.h"

namespace ferry::seckill {
namespace {

using testsupport::MariaDbServer;

constexpr int64_t kSku = 501;
constexpr int64_t kNow = 1'700'000'000'000;
constexpr size_t kPoolSize = 8;

enum class Backend { kSqlite, kMariaDb };

std::string BackendName(const ::testing::TestParamInfo<Backend>& info) {
  return info.param == Backend::kSqlite ? "sqlite" : "mariadb";
}

class OrderStoreTest : public ::testing::TestWithParam<Backend> {
 protected:
  static void TearDownTestSuite() {
    delete mariadb_;
    mariadb_ = nullptr;
  }

  void SetUp() override {
    std::unique_ptr<storage::SqlConnectionPool> pool;
    if (GetParam() == Backend::kSqlite) {
      dir_ = std::filesystem::path(::testing::TempDir()) /
             ("seckill-store-" + std::to_string(::getpid()) + "-" + std::to_string(++counter_));
      std::filesystem::remove_all(dir_);
      std::filesystem::create_directories(dir_);
      pool = SqliteOrderDatabase((dir_ / "orders.db").string(), kPoolSize);
    } else {
      // One server per test process; started by the first MariaDB case.
      if (mariadb_ == nullptr) {
        mariadb_ = new MariaDbServer();
        ASSERT_TRUE(mariadb_->Start());
      }
      storage::MariaDbOptions options;
      options.host = mariadb_->host();
      options.port = mariadb_->port();
      options.user = mariadb_->user();
      options.password = mariadb_->password();
      options.database = "store_" + std::to_string(::getpid()) + "_" + std::to_string(++counter_);
      options.timeout_ms = 10000;
      pool = MariaDbOrderDatabase(options, kPoolSize);
    }
    store_ = std::make_unique<SqlOrderStore>(std::move(pool));
    Status s = store_->Initialize();
    ASSERT_TRUE(s.ok()) << s;
    // Initialize twice is harmless (CREATE ... IF NOT EXISTS).
    s = store_->Initialize();
    ASSERT_TRUE(s.ok()) << s;
  }

  void TearDown() override {
    store_.reset();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  ActivityRecord NewActivity(int64_t stock, uint32_t pay_timeout_s = 30) {
    ActivityRecord a;
    a.sku_id = kSku;
    a.name = "flash sale";
    a.initial_stock = stock;
    a.start_time_ms = kNow - 1000;
    a.end_time_ms = kNow + 3'600'000;
    a.price_cents = 999;
    a.pay_timeout_s = pay_timeout_s;
    Status s = store_->CreateActivity(&a);
    EXPECT_TRUE(s.ok()) << s;
    return a;
  }

  OrderDraft Draft(const ActivityRecord& a, const std::string& user, const std::string& request,
                   int64_t deadline_ms = kNow + 30'000) {
    return OrderDraft{a.activity_id, a.sku_id, user, request, next_order_++, kNow, deadline_ms};
  }

  PlaceResult Place(const OrderDraft& draft) {
    PlaceResult result;
    Status s = store_->PlaceOrder(draft, &result);
    EXPECT_TRUE(s.ok()) << s;
    return result;
  }

  // The request id MustOrder uses.
  static std::string RequestOf(const ActivityRecord& a, const std::string& user) {
    return "req-" + std::to_string(a.activity_id) + "-" + user;
  }

  // Places an order that must be created, returning its number.
  int64_t MustOrder(const ActivityRecord& a, const std::string& user,
                    int64_t deadline_ms = kNow + 30'000) {
    const PlaceResult r = Place(Draft(a, user, RequestOf(a, user), deadline_ms));
    EXPECT_EQ(r.outcome, PlaceOutcome::kCreated);
    EXPECT_FALSE(r.replayed);
    return r.order_no;
  }

  int64_t Remaining(const ActivityRecord& a) {
    ActivityRecord now;
    Status s = store_->GetActivity(a.activity_id, &now);
    EXPECT_TRUE(s.ok()) << s;
    return now.remaining_stock;
  }

  StoreCounts Counts(const ActivityRecord& a) {
    StoreCounts counts;
    Status s = store_->Count(a.activity_id, a.sku_id, &counts);
    EXPECT_TRUE(s.ok()) << s;
    return counts;
  }

  OrderState StateOf(int64_t order_no) {
    OrderRecord order;
    Status s = store_->GetOrder(order_no, &order);
    EXPECT_TRUE(s.ok()) << s;
    return order.state;
  }

  static MariaDbServer* mariadb_;
  static int counter_;
  std::filesystem::path dir_;
  std::unique_ptr<OrderStore> store_;
  std::atomic<int64_t> next_order_{1000};
};

MariaDbServer* OrderStoreTest::mariadb_ = nullptr;
int OrderStoreTest::counter_ = 0;

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
  RequestRecord decided;
  ASSERT_TRUE(store_->FailRequest(scope, kReasonWriteFailed, &decided).ok());
  EXPECT_FALSE(decided.created);
  EXPECT_EQ(decided.reason, kReasonWriteFailed);
  ASSERT_TRUE(store_->FailRequest(scope, kReasonUnparsable, &decided).ok());
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
  ASSERT_TRUE(store_
                  ->FailRequest({a.activity_id, a.sku_id, "fay", RequestOf(a, "fay")},
                                kReasonWriteFailed, &decided)
                  .ok());
  EXPECT_TRUE(decided.created);
  EXPECT_EQ(decided.order_no, order_no);
  EXPECT_EQ(Remaining(a), 2);

  EXPECT_EQ(store_->FailRequest(scope, "", &decided).code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(store_->FailRequest(scope, std::string(33, 'x'), &decided).code(),
            StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(
      store_->FailRequest({a.activity_id, a.sku_id, "", "r"}, kReasonWriteFailed, &decided).code(),
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
  ASSERT_TRUE(store_->CancelUnpaid(u1.order_no, &cancelled).ok());
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

TEST_P(OrderStoreTest, PayIsIdempotentAndASecondPaymentIsRefunded) {
  const ActivityRecord a = NewActivity(5);
  const int64_t order_no = MustOrder(a, "carol");
  const int64_t other = MustOrder(a, "dave");

  PaymentResult outcome{};
  ASSERT_TRUE(store_->Pay(order_no, "alipay", "txn-1", ChannelReport::kSucceeded, &outcome).ok());
  EXPECT_EQ(outcome, PaymentResult::kPaid);
  EXPECT_EQ(StateOf(order_no), OrderState::kPaid);

  ASSERT_TRUE(store_->Pay(order_no, "alipay", "txn-1", ChannelReport::kSucceeded, &outcome).ok());
  EXPECT_EQ(outcome, PaymentResult::kAlreadyPaid);

  ASSERT_TRUE(store_->Pay(order_no, "alipay", "txn-2", ChannelReport::kSucceeded, &outcome).ok());
  EXPECT_EQ(outcome, PaymentResult::kRefundRequired);
  // Replaying the refunded payment is still a refund, never a sale.
  ASSERT_TRUE(store_->Pay(order_no, "alipay", "txn-2", ChannelReport::kSucceeded, &outcome).ok());
  EXPECT_EQ(outcome, PaymentResult::kRefundRequired);
  // The same txn id on another channel is another payment.
  ASSERT_TRUE(store_->Pay(order_no, "wechat", "txn-1", ChannelReport::kSucceeded, &outcome).ok());
  EXPECT_EQ(outcome, PaymentResult::kRefundRequired);
  EXPECT_EQ(StateOf(order_no), OrderState::kPaid);

  // A transaction that paid one order cannot pay another.
  Status s = store_->Pay(other, "alipay", "txn-1", ChannelReport::kSucceeded, &outcome);
  EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT) << s;
  EXPECT_EQ(StateOf(other), OrderState::kUnpaid);

  EXPECT_EQ(store_->Pay(987654321, "alipay", "txn-9", ChannelReport::kSucceeded, &outcome).code(),
            StatusCode::NOT_FOUND);

  // A paid order cannot be cancelled.
  CancelResult cancel;
  ASSERT_TRUE(store_->CancelUnpaid(order_no, &cancel).ok());
  EXPECT_FALSE(cancel.cancelled);
  EXPECT_EQ(cancel.state, OrderState::kPaid);

  const StoreCounts counts = Counts(a);
  EXPECT_EQ(counts.orders_paid, 1);
  EXPECT_EQ(counts.orders_unpaid, 1);
  EXPECT_EQ(counts.refunds_required, 2);
  EXPECT_EQ(counts.remaining_stock, 3);
}

TEST_P(OrderStoreTest, AnOrderWhosePaymentIsUnknownWaitsForItsResult) {
  const ActivityRecord a = NewActivity(5);
  const int64_t confirmed = MustOrder(a, "u-confirmed", kNow + 1000);
  const int64_t failed = MustOrder(a, "u-failed", kNow + 1000);
  const int64_t two = MustOrder(a, "u-two", kNow + 1000);
  PaymentResult outcome{};
  for (int64_t order_no : {confirmed, failed, two}) {
    ASSERT_TRUE(store_
                    ->Pay(order_no, "alipay", "q-" + std::to_string(order_no),
                          ChannelReport::kUnknown, &outcome)
                    .ok());
    EXPECT_EQ(outcome, PaymentResult::kPendingConfirmation);
    EXPECT_EQ(StateOf(order_no), OrderState::kConfirming);
  }
  ASSERT_TRUE(store_->Pay(two, "wechat", "q-two", ChannelReport::kUnknown, &outcome).ok());
  EXPECT_EQ(outcome, PaymentResult::kPendingConfirmation);

  // Past their deadline, none is due for closing, and none can be cancelled.
  std::vector<int64_t> expired;
  ASSERT_TRUE(store_->ListExpiredUnpaid(kNow + 5000, 10, &expired).ok());
  EXPECT_TRUE(expired.empty());
  CancelResult cancel;
  ASSERT_TRUE(store_->CancelUnpaid(confirmed, &cancel).ok());
  EXPECT_FALSE(cancel.cancelled);
  EXPECT_EQ(cancel.state, OrderState::kConfirming);
  EXPECT_EQ(Counts(a).orders_confirming, 3);
  EXPECT_EQ(Counts(a).remaining_stock, 2);

  // Still unknown, then the result.
  const std::string txn = "q-" + std::to_string(confirmed);
  ASSERT_TRUE(store_->Pay(confirmed, "alipay", txn, ChannelReport::kUnknown, &outcome).ok());
  EXPECT_EQ(outcome, PaymentResult::kPendingConfirmation);
  ASSERT_TRUE(store_->Pay(confirmed, "alipay", txn, ChannelReport::kSucceeded, &outcome).ok());
  EXPECT_EQ(outcome, PaymentResult::kPaid);
  EXPECT_EQ(StateOf(confirmed), OrderState::kPaid);
  // A settled result is kept.
  ASSERT_TRUE(store_->Pay(confirmed, "alipay", txn, ChannelReport::kUnknown, &outcome).ok());
  EXPECT_EQ(outcome, PaymentResult::kAlreadyPaid);

  ASSERT_TRUE(
      store_->Pay(failed, "alipay", "q-" + std::to_string(failed), ChannelReport::kFailed, &outcome)
          .ok());
  EXPECT_EQ(outcome, PaymentResult::kNotPaid);
  EXPECT_EQ(StateOf(failed), OrderState::kUnpaid);
  ASSERT_TRUE(store_
                  ->Pay(failed, "alipay", "q-" + std::to_string(failed), ChannelReport::kSucceeded,
                        &outcome)
                  .ok());
  EXPECT_EQ(outcome, PaymentResult::kNotPaid);
  EXPECT_EQ(StateOf(failed), OrderState::kUnpaid);

  // One of two unknown payments failing leaves the order waiting for the other.
  ASSERT_TRUE(store_->Pay(two, "wechat", "q-two", ChannelReport::kFailed, &outcome).ok());
  EXPECT_EQ(outcome, PaymentResult::kNotPaid);
  EXPECT_EQ(StateOf(two), OrderState::kConfirming);
  ASSERT_TRUE(
      store_->Pay(two, "alipay", "q-" + std::to_string(two), ChannelReport::kFailed, &outcome)
          .ok());
  EXPECT_EQ(StateOf(two), OrderState::kUnpaid);

  ASSERT_TRUE(store_->ListExpiredUnpaid(kNow + 5000, 10, &expired).ok());
  std::sort(expired.begin(), expired.end());
  EXPECT_EQ(expired, (std::vector<int64_t>{std::min(failed, two), std::max(failed, two)}));
  EXPECT_EQ(store_->Pay(987654321, "alipay", "q-none", ChannelReport::kUnknown, &outcome).code(),
            StatusCode::NOT_FOUND);
  EXPECT_EQ(store_->Pay(987654321, "alipay", "q-none", ChannelReport::kFailed, &outcome).code(),
            StatusCode::NOT_FOUND);
}

// The channel's result for an unknown payment delivered several times at once settles it once:
// one report pays, the others read that payment, and no money is owed back.
TEST_P(OrderStoreTest, AnUnknownPaymentReportedSucceededTwiceAtOncePaysOnce) {
  const ActivityRecord a = NewActivity(20);
  constexpr int kOrders = 10;
  constexpr int kReports = 4;
  for (int i = 0; i < kOrders; ++i) {
    const int64_t order_no = MustOrder(a, "twice-" + std::to_string(i));
    const std::string txn = "q-" + std::to_string(order_no);
    PaymentResult outcome{};
    ASSERT_TRUE(store_->Pay(order_no, "alipay", txn, ChannelReport::kUnknown, &outcome).ok());
    std::vector<PaymentResult> results(kReports);
    std::vector<std::thread> reporters;
    for (int r = 0; r < kReports; ++r) {
      reporters.emplace_back([&, r] {
        Status s = store_->Pay(order_no, "alipay", txn, ChannelReport::kSucceeded, &results[r]);
        EXPECT_TRUE(s.ok()) << s;
      });
    }
    for (auto& t : reporters) t.join();
    EXPECT_EQ(std::count(results.begin(), results.end(), PaymentResult::kPaid), 1);
    EXPECT_EQ(std::count(results.begin(), results.end(), PaymentResult::kAlreadyPaid),
              kReports - 1);
    EXPECT_EQ(StateOf(order_no), OrderState::kPaid);
  }
  const StoreCounts counts = Counts(a);
  EXPECT_EQ(counts.orders_paid, kOrders);
  EXPECT_EQ(counts.refunds_required, 0);
}

TEST_P(OrderStoreTest, AnUnknownPaymentForAClosedOrderIsRefundedOnceItSucceeds) {
  const ActivityRecord a = NewActivity(2);
  const int64_t order_no = MustOrder(a, "u-late");
  CancelResult cancel;
  ASSERT_TRUE(store_->CancelUnpaid(order_no, &cancel).ok());
  PaymentResult outcome{};
  ASSERT_TRUE(store_->Pay(order_no, "alipay", "late", ChannelReport::kUnknown, &outcome).ok());
  EXPECT_EQ(outcome, PaymentResult::kPendingConfirmation);
  EXPECT_EQ(StateOf(order_no), OrderState::kCancelled);
  ASSERT_TRUE(store_->Pay(order_no, "alipay", "late", ChannelReport::kSucceeded, &outcome).ok());
  EXPECT_EQ(outcome, PaymentResult::kRefundRequired);
  EXPECT_EQ(StateOf(order_no), OrderState::kCancelled);
  EXPECT_EQ(Counts(a).refunds_required, 1);
}

TEST_P(OrderStoreTest, ARefundOwedIsRecordedAsMadeOnce) {
  const ActivityRecord a = NewActivity(3);
  const int64_t order_no = MustOrder(a, "r-buyer");
  PaymentResult outcome{};
  ASSERT_TRUE(store_->Pay(order_no, "alipay", "p-1", ChannelReport::kSucceeded, &outcome).ok());
  for (const char* txn : {"p-2", "p-3"}) {
    ASSERT_TRUE(store_->Pay(order_no, "alipay", txn, ChannelReport::kSucceeded, &outcome).ok());
    EXPECT_EQ(outcome, PaymentResult::kRefundRequired);
  }
  RefundResult refunded{};
  ASSERT_TRUE(store_->RecordRefund("alipay", "p-2", "rf-a", &refunded).ok());
  EXPECT_EQ(refunded, RefundResult::kRefunded);
  ASSERT_TRUE(store_->RecordRefund("alipay", "p-2", "rf-a", &refunded).ok());
  EXPECT_EQ(refunded, RefundResult::kAlreadyRefunded);
  Status s = store_->RecordRefund("alipay", "p-2", "rf-b", &refunded);
  EXPECT_EQ(s.code(), StatusCode::FAILED_PRECONDITION) << s;
  s = store_->RecordRefund("alipay", "p-1", "rf-c", &refunded);
  EXPECT_EQ(s.code(), StatusCode::FAILED_PRECONDITION) << s;
  EXPECT_NE(s.message().find("owed no refund"), std::string::npos) << s;
  s = store_->RecordRefund("alipay", "p-none", "rf-d", &refunded);
  EXPECT_EQ(s.code(), StatusCode::NOT_FOUND) << s;

  // Two refunds of the same payment racing: one is recorded, the other refused.
  std::atomic<int> recorded{0};
  std::atomic<int> refused{0};
  std::vector<std::thread> refunders;
  for (int i = 0; i < 4; ++i) {
    refunders.emplace_back([&, i] {
      RefundResult r{};
      Status st = store_->RecordRefund("alipay", "p-3", "race-" + std::to_string(i), &r);
      if (st.ok() && r == RefundResult::kRefunded) ++recorded;
      if (st.code() == StatusCode::FAILED_PRECONDITION) ++refused;
    });
  }
  for (auto& t : refunders) t.join();
  EXPECT_EQ(recorded.load(), 1);
  EXPECT_EQ(refused.load(), 3);

  const StoreCounts counts = Counts(a);
  EXPECT_EQ(counts.refunds_required, 0);
  EXPECT_EQ(counts.refunds_done, 2);
}

TEST_P(OrderStoreTest, PaymentForACancelledOrderIsRefunded) {
  const ActivityRecord a = NewActivity(2);
  const int64_t order_no = MustOrder(a, "erin");
  CancelResult cancel;
  ASSERT_TRUE(store_->CancelUnpaid(order_no, &cancel).ok());
  ASSERT_TRUE(cancel.cancelled);

  PaymentResult outcome{};
  ASSERT_TRUE(store_->Pay(order_no, "alipay", "late-1", ChannelReport::kSucceeded, &outcome).ok());
  EXPECT_EQ(outcome, PaymentResult::kRefundRequired);
  ASSERT_TRUE(store_->Pay(order_no, "alipay", "late-1", ChannelReport::kSucceeded, &outcome).ok());
  EXPECT_EQ(outcome, PaymentResult::kRefundRequired);
  EXPECT_EQ(StateOf(order_no), OrderState::kCancelled);

  const StoreCounts counts = Counts(a);
  EXPECT_EQ(counts.orders_paid, 0);
  EXPECT_EQ(counts.orders_cancelled, 1);
  EXPECT_EQ(counts.refunds_required, 1);
  EXPECT_EQ(counts.remaining_stock, 2);
}

TEST_P(OrderStoreTest, CancelReleasesTheUnitExactlyOnce) {
  const ActivityRecord a = NewActivity(2);
  const int64_t order_no = MustOrder(a, "frank");
  EXPECT_EQ(Remaining(a), 1);

  CancelResult first;
  ASSERT_TRUE(store_->CancelUnpaid(order_no, &first).ok());
  EXPECT_TRUE(first.cancelled);
  EXPECT_EQ(first.state, OrderState::kCancelled);
  EXPECT_EQ(Remaining(a), 2);

  CancelResult second;
  ASSERT_TRUE(store_->CancelUnpaid(order_no, &second).ok());
  EXPECT_FALSE(second.cancelled);
  EXPECT_EQ(second.state, OrderState::kCancelled);
  EXPECT_EQ(Remaining(a), 2);

  EXPECT_EQ(store_->CancelUnpaid(123456789, &second).code(), StatusCode::NOT_FOUND);

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

TEST_P(OrderStoreTest, PayAndCancelRacingNeverBothWin) {
  constexpr int kLanes = 4;
  constexpr int kOrdersPerLane = 25;
  constexpr int kOrders = kLanes * kOrdersPerLane;
  const ActivityRecord a = NewActivity(kOrders);
  std::vector<int64_t> orders;
  for (int i = 0; i < kOrders; ++i) orders.push_back(MustOrder(a, "racer-" + std::to_string(i)));
  ASSERT_EQ(Remaining(a), 0);

  // Per lane one payer and one canceller walk the same orders at the same time.
  std::vector<PaymentResult> paid(kOrders, PaymentResult::kAlreadyPaid);
  std::vector<char> pay_ok(kOrders, 0);
  std::vector<CancelResult> cancelled(kOrders);
  std::vector<char> cancel_ok(kOrders, 0);
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int lane = 0; lane < kLanes; ++lane) {
    const int begin = lane * kOrdersPerLane;
    threads.emplace_back([&, begin] {
      ++ready;
      while (ready.load() < 2 * kLanes) std::this_thread::yield();
      for (int i = begin; i < begin + kOrdersPerLane; ++i) {
        pay_ok[i] = store_->Pay(orders[i], "alipay", "race-" + std::to_string(i),
                                ChannelReport::kSucceeded, &paid[i])
                            .ok()
                        ? 1
                        : 0;
      }
    });
    threads.emplace_back([&, begin] {
      ++ready;
      while (ready.load() < 2 * kLanes) std::this_thread::yield();
      for (int i = begin; i < begin + kOrdersPerLane; ++i) {
        cancel_ok[i] = store_->CancelUnpaid(orders[i], &cancelled[i]).ok() ? 1 : 0;
      }
    });
  }
  for (auto& thread : threads) thread.join();

  int paid_count = 0;
  int cancelled_count = 0;
  for (int i = 0; i < kOrders; ++i) {
    ASSERT_TRUE(pay_ok[i]) << "order " << i;
    ASSERT_TRUE(cancel_ok[i]) << "order " << i;
    const bool pay_won = paid[i] == PaymentResult::kPaid;
    EXPECT_NE(pay_won, cancelled[i].cancelled) << "order " << i;
    if (pay_won) {
      ++paid_count;
      EXPECT_EQ(StateOf(orders[i]), OrderState::kPaid);
    } else {
      ++cancelled_count;
      EXPECT_EQ(paid[i], PaymentResult::kRefundRequired);
      EXPECT_EQ(StateOf(orders[i]), OrderState::kCancelled);
    }
  }
  const StoreCounts counts = Counts(a);
  EXPECT_EQ(counts.orders_paid, paid_count);
  EXPECT_EQ(counts.orders_cancelled, cancelled_count);
  EXPECT_EQ(counts.orders_unpaid, 0);
  EXPECT_EQ(counts.refunds_required, cancelled_count);
  // Every cancellation returned exactly its one unit.
  EXPECT_EQ(counts.remaining_stock, cancelled_count);
  std::vector<PendingCacheRelease> releases;
  ASSERT_TRUE(store_->ListPendingCacheReleases(kOrders * 2, &releases).ok());
  EXPECT_EQ(static_cast<int>(releases.size()), cancelled_count);
}

TEST_P(OrderStoreTest, ListsExpiredUnpaidOrdersByDeadline) {
  const ActivityRecord a = NewActivity(6);
  const int64_t late = MustOrder(a, "o-late", kNow + 3000);
  const int64_t early = MustOrder(a, "o-early", kNow + 1000);
  const int64_t middle = MustOrder(a, "o-middle", kNow + 2000);
  const int64_t paid = MustOrder(a, "o-paid", kNow + 500);
  const int64_t cancelled = MustOrder(a, "o-cancelled", kNow + 600);
  PaymentResult outcome{};
  ASSERT_TRUE(store_->Pay(paid, "alipay", "t-paid", ChannelReport::kSucceeded, &outcome).ok());
  CancelResult cancel;
  ASSERT_TRUE(store_->CancelUnpaid(cancelled, &cancel).ok());

  std::vector<int64_t> expired;
  ASSERT_TRUE(store_->ListExpiredUnpaid(kNow, 10, &expired).ok());
  EXPECT_TRUE(expired.empty());
  ASSERT_TRUE(store_->ListExpiredUnpaid(kNow + 2500, 10, &expired).ok());
  EXPECT_EQ(expired, (std::vector<int64_t>{early, middle}));
  expired.clear();
  ASSERT_TRUE(store_->ListExpiredUnpaid(kNow + 2000, 10, &expired).ok());  // deadline inclusive
  EXPECT_EQ(expired, (std::vector<int64_t>{early, middle}));
  expired.clear();
  ASSERT_TRUE(store_->ListExpiredUnpaid(kNow + 5000, 1, &expired).ok());
  EXPECT_EQ(expired, (std::vector<int64_t>{early}));
  expired.clear();
  ASSERT_TRUE(store_->ListExpiredUnpaid(kNow + 5000, 10, &expired).ok());
  EXPECT_EQ(expired, (std::vector<int64_t>{early, middle, late}));
}

TEST_P(OrderStoreTest, PendingCacheReleasesAreListedUntilMarked) {
  const ActivityRecord a = NewActivity(4);
  const int64_t first = MustOrder(a, "p1");
  const int64_t second = MustOrder(a, "p2");
  MustOrder(a, "p3");

  std::vector<PendingCacheRelease> releases;
  ASSERT_TRUE(store_->ListPendingCacheReleases(10, &releases).ok());
  EXPECT_TRUE(releases.empty());

  CancelResult cancel;
  ASSERT_TRUE(store_->CancelUnpaid(first, &cancel).ok());
  ASSERT_TRUE(store_->CancelUnpaid(second, &cancel).ok());
  ASSERT_TRUE(store_->CancelUnpaid(second, &cancel).ok());  // no second release
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

  ASSERT_TRUE(store_->MarkCacheReleased(first).ok());
  releases.clear();
  ASSERT_TRUE(store_->ListPendingCacheReleases(10, &releases).ok());
  ASSERT_EQ(releases.size(), 1u);
  EXPECT_EQ(releases[0].order_no, second);

  ASSERT_TRUE(store_->MarkCacheReleased(second).ok());
  ASSERT_TRUE(store_->MarkCacheReleased(second).ok());
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
  PaymentResult outcome{};
  ASSERT_TRUE(store_->Pay(paid, "alipay", "k-1", ChannelReport::kSucceeded, &outcome).ok());
  ASSERT_TRUE(store_->Pay(paid, "alipay", "k-2", ChannelReport::kSucceeded, &outcome).ok());
  CancelResult cancel;
  ASSERT_TRUE(store_->CancelUnpaid(cancelled, &cancel).ok());

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

// A version 2 database recorded refunds owed without refund records: refused with what to do.
TEST(OrderStoreSchemaTest, ADatabaseOfAnEarlierSchemaVersionIsRefused) {
  // 2: refunds owed without refund records; 3: stock releases without the cache generation.
  for (const int version : {2, 3}) {
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
        s.message().find("schema version " + std::to_string(version) + ", this server knows 4"),
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
