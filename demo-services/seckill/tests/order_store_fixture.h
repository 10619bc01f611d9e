#pragma once

// The fixture of the OrderStore tests (seckill_store_test, one file per concern): the same cases
// over both adapters, SqlOrderStore on SQLite (a file in a temporary directory) and on MariaDB (a
// real mariadbd from tests/support, one per test process, a fresh database per test).

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>

#include "mariadb_server.h"
#include "storage/order_database.h"
#include "storage/sql_order_store.h"

namespace ferry::seckill::testing {

using testsupport::MariaDbServer;

constexpr int64_t kSku = 501;
constexpr int64_t kNow = 1'700'000'000'000;
constexpr size_t kPoolSize = 8;

enum class Backend { kSqlite, kMariaDb };

inline std::string BackendName(const ::testing::TestParamInfo<Backend>& info) {
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
    return OrderDraft{.activity_id = a.activity_id,
                      .sku_id = a.sku_id,
                      .user_id = user,
                      .request_id = request,
                      .order_no = next_order_++,
                      .created_ms = kNow,
                      .pay_deadline_ms = deadline_ms,
                      .amount_cents = a.price_cents,
                      .currency = "CNY"};
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

  // The buyer's cancel: UNPAID only, whatever the deadline.
  CancelResult Cancel(int64_t order_no) {
    CancelResult result;
    Status s = store_->CloseOrder(order_no, {OrderState::kUnpaid}, 0, &result);
    EXPECT_TRUE(s.ok()) << s;
    return result;
  }

  // What the channel says of a payment of `order_no`: taken, with transaction `txn`.
  PaymentApplied Pay(int64_t order_no, const std::string& txn, int64_t amount_cents,
                     const std::string& notification_id = "", const std::string& channel = "sim") {
    PaymentApplied applied;
    const ChannelPaymentStatus payment{.state = ChannelPaymentState::kSucceeded,
                                       .channel_txn_id = txn,
                                       .amount_cents = amount_cents,
                                       .currency = "CNY"};
    Status s = store_->ApplyPayment(order_no, channel, payment, notification_id, kNow, &applied);
    EXPECT_TRUE(s.ok()) << s;
    return applied;
  }

  RequestRecord Fail(const RequestScope& scope, const std::string& reason) {
    RequestRecord decided;
    int64_t epoch = 0;
    Status s = store_->FailRequest(scope, reason, &decided, &epoch);
    EXPECT_TRUE(s.ok()) << s;
    return decided;
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

inline MariaDbServer* OrderStoreTest::mariadb_ = nullptr;
inline int OrderStoreTest::counter_ = 0;

}  // namespace ferry::seckill::testing
