// The provider's copy of activities, on a real SQLite store with a clock the test moves: how
// soon a copy made before another provider's preheat sees the sale open.
#include "service/activity_directory.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>

#include "storage/order_database.h"
#include "storage/sql_order_store.h"
#include "temp_dir.h"

namespace ferry::seckill {
namespace {

class ActivityDirectoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::make_unique<SqlOrderStore>(
        SqliteOrderDatabase((dir_.path() / "seckill.db").string(), 2));
    ASSERT_TRUE(store_->Initialize().ok());
    directory_ = std::make_unique<ActivityDirectory>(
        store_.get(), [this] { return now_.load(); }, 500, 20);
  }

  // An activity created (closed) whose window starts at `start_ms` on the test's clock.
  int64_t Create(int64_t start_ms) {
    ActivityRecord a;
    a.sku_id = 3;
    a.name = "sale";
    a.initial_stock = 5;
    a.start_time_ms = start_ms;
    a.end_time_ms = start_ms + 3'600'000;
    a.pay_timeout_s = 60;
    const Status s = store_->CreateActivity(&a);
    EXPECT_TRUE(s.ok()) << s;
    return a.activity_id;
  }

  bool OpenInCopy(ActivityDirectory& directory, int64_t id) {
    ActivityRecord copy;
    const Status s = directory.Get(id, &copy);
    EXPECT_TRUE(s.ok()) << s;
    return copy.open;
  }

  testsupport::TempDir dir_;
  std::unique_ptr<SqlOrderStore> store_;
  std::atomic<int64_t> now_{1'000'000};
  std::unique_ptr<ActivityDirectory> directory_;
};

TEST_F(ActivityDirectoryTest, AClosedCopyPastItsStartSeesAPreheatElsewhereWithinTheShortRecheck) {
  const int64_t id = Create(now_ - 1000);
  EXPECT_FALSE(OpenInCopy(*directory_, id));
  ASSERT_TRUE(store_->MarkOpen(id).ok());  // another provider's preheat
  now_ += 10;
  EXPECT_FALSE(OpenInCopy(*directory_, id)) << "within the short recheck the copy is kept";
  now_ += 10;
  EXPECT_TRUE(OpenInCopy(*directory_, id));
}

TEST_F(ActivityDirectoryTest, AClosedCopyBeforeItsStartIsKeptForTheLongRecheck) {
  const int64_t id = Create(now_ + 60'000);
  EXPECT_FALSE(OpenInCopy(*directory_, id));
  ASSERT_TRUE(store_->MarkOpen(id).ok());
  now_ += 499;
  EXPECT_FALSE(OpenInCopy(*directory_, id));
  now_ += 1;
  EXPECT_TRUE(OpenInCopy(*directory_, id));
}

TEST_F(ActivityDirectoryTest, AnOpenCopyIsKeptAndAnUnknownIdIsLookedUpAgainLater) {
  const int64_t id = Create(now_ - 1000);
  ASSERT_TRUE(store_->MarkOpen(id).ok());
  EXPECT_TRUE(OpenInCopy(*directory_, id));
  ActivityRecord copy;
  EXPECT_EQ(directory_->Get(id + 1, &copy).code(), StatusCode::NOT_FOUND);
  const int64_t next = Create(now_ - 1000);
  ASSERT_EQ(next, id + 1);
  now_ += 20;
  EXPECT_EQ(directory_->Get(next, &copy).code(), StatusCode::NOT_FOUND) << "unknown: long recheck";
  now_ += 480;
  EXPECT_TRUE(directory_->Get(next, &copy).ok());
}

}  // namespace
}  // namespace ferry::seckill
