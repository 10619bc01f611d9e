// SqlLease on both databases: one holder at a time, renewed by its holder, taken over once it
// expired (the new holder inherits the saved state, the old one can no longer save), given up
// by Release; many processes racing for a fresh lease end with exactly one holder.

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ferry/storage/sql_lease.h"
#include "sql_test_databases.h"

namespace ferry::storage::testing {
namespace {

class SqlLeaseTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    SqlConnectionPool::Factory factory = FreshDatabase(GetParam(), dir_);
    ASSERT_TRUE(factory);
    pool_ = std::make_unique<SqlConnectionPool>(factory, 8);
    std::unique_ptr<SqlConnectionPool::Lease> lease;
    ASSERT_TRUE(pool_->Acquire(&lease).ok());
    Status s = (*lease)->ExecuteScript(SqlLease::Schema((*lease)->dialect()));
    ASSERT_TRUE(s.ok()) << s;
  }

  bool Held(SqlLease& lease, std::string* state = nullptr) {
    bool held = false;
    Status s = lease.Acquire(&held, state);
    EXPECT_TRUE(s.ok()) << s;
    return held;
  }

  TempDir dir_;
  std::unique_ptr<SqlConnectionPool> pool_;
};

TEST_P(SqlLeaseTest, OneHolderAtATimeUntilItExpires) {
  int64_t now = 1'000'000;
  auto clock = [&] { return now; };
  SqlLease a(pool_.get(), "job", "a", std::chrono::milliseconds(1000), clock);
  SqlLease b(pool_.get(), "job", "b", std::chrono::milliseconds(1000), clock);
  ASSERT_TRUE(Held(a));
  ASSERT_TRUE(a.Save("cursor=7").ok());
  EXPECT_FALSE(Held(b));
  now += 900;
  EXPECT_TRUE(Held(a));  // renewed: another 1000 ms from now
  now += 900;
  EXPECT_FALSE(Held(b));
  now += 200;  // past a's renewal
  std::string state;
  EXPECT_TRUE(Held(b, &state));
  EXPECT_EQ(state, "cursor=7");
  EXPECT_FALSE(Held(a));
  Status s = a.Save("cursor=8");
  EXPECT_EQ(s.code(), StatusCode::FAILED_PRECONDITION) << s;
  ASSERT_TRUE(b.Release().ok());
  EXPECT_TRUE(Held(a, &state));
  EXPECT_EQ(state, "cursor=7");
}

TEST_P(SqlLeaseTest, RacersForAFreshLeaseEndWithOneHolder) {
  constexpr int kRacers = 6;
  std::atomic<int> holders{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kRacers; ++i) {
    threads.emplace_back([&, i] {
      SqlLease lease(pool_.get(), "race", "p" + std::to_string(i), std::chrono::seconds(60));
      bool held = false;
      Status s = lease.Acquire(&held);
      EXPECT_TRUE(s.ok()) << s;
      if (held) ++holders;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(holders.load(), 1);
}

INSTANTIATE_TEST_SUITE_P(Adapters, SqlLeaseTest,
                         ::testing::Values(Backend::kSqlite, Backend::kMariaDb), BackendName);

}  // namespace
}  // namespace ferry::storage::testing
