// SqlConnectionPool over real connections: an idle connection is handed out again, no more than
// max_size are ever open, a waiter gets the next one returned, a broken one is replaced, and a
// pool of MariaDB connections heals after the server restarts.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "ferry/storage/mariadb_connection.h"
#include "ferry/storage/sql_connection_pool.h"
#include "mariadb_server.h"
#include "sql_test_databases.h"

namespace ferry::storage::testing {
namespace {

using namespace std::chrono_literals;

class SqlConnectionPoolTest : public ::testing::Test {
 protected:
  std::unique_ptr<SqlConnectionPool::Lease> MustAcquire(SqlConnectionPool& pool) {
    std::unique_ptr<SqlConnectionPool::Lease> lease;
    Status s = pool.Acquire(&lease);
    EXPECT_TRUE(s.ok()) << s;
    return lease;
  }

  TempDir dir_;
  CountingFactory sqlite_{FreshDatabase(Backend::kSqlite, dir_)};
};

TEST_F(SqlConnectionPoolTest, AReturnedConnectionIsHandedOutAgain) {
  SqlConnectionPool pool(sqlite_.factory(), 4);
  SqlConnection* first = nullptr;
  {
    auto lease = MustAcquire(pool);
    ASSERT_NE(lease, nullptr);
    first = &**lease;
  }
  auto again = MustAcquire(pool);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(&**again, first);
  EXPECT_EQ(sqlite_.opened(), 1);
}

// A transaction that ends ABORTED or ALREADY_EXISTS runs again from the start, its rolled-back
// writes gone; any other error is returned at once, after a rollback; the attempts are bounded.
TEST_F(SqlConnectionPoolTest, InTransactionRunsAgainOnlyWhatTheDatabaseRolledBack) {
  SqlConnectionPool pool(sqlite_.factory(), 2);
  ASSERT_TRUE(MustAcquire(pool)->operator->()->ExecuteScript("CREATE TABLE t (v INTEGER)").ok());
  auto rows = [&] {
    std::vector<SqlRow> out;
    EXPECT_TRUE(MustAcquire(pool)->operator->()->Query("SELECT v FROM t", {}, &out).ok());
    return out.size();
  };
  int runs = 0;
  Status s = pool.InTransaction([&](SqlConnection& c) {
    ++runs;
    if (Status s = c.Execute("INSERT INTO t (v) VALUES (?)", {int64_t{runs}}); !s.ok()) return s;
    return runs < 3 ? Status(runs == 1 ? StatusCode::ABORTED : StatusCode::ALREADY_EXISTS, "again")
                    : Status::Ok();
  });
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_EQ(runs, 3);
  EXPECT_EQ(rows(), 1u);  // the first two attempts' rows were rolled back

  runs = 0;
  s = pool.InTransaction([&](SqlConnection& c) {
    ++runs;
    if (Status s = c.Execute("INSERT INTO t (v) VALUES (9)", {}); !s.ok()) return s;
    return Status(StatusCode::INVALID_ARGUMENT, "refused");
  });
  EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(rows(), 1u);

  runs = 0;
  s = pool.InTransaction(
      [&](SqlConnection&) {
        ++runs;
        return Status(StatusCode::ABORTED, "deadlock");
      },
      3);
  EXPECT_EQ(s.code(), StatusCode::ABORTED);
  EXPECT_EQ(runs, 3);
}

TEST_F(SqlConnectionPoolTest, NoMoreThanMaxSizeAreOpenAndAWaiterGetsTheNextOneReturned) {
  SqlConnectionPool pool(sqlite_.factory(), 2, 100ms);
  auto a = MustAcquire(pool);
  auto b = MustAcquire(pool);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  std::unique_ptr<SqlConnectionPool::Lease> none;
  Status s = pool.Acquire(&none);
  EXPECT_EQ(s.code(), StatusCode::UNAVAILABLE) << s;
  EXPECT_EQ(none, nullptr);
  EXPECT_EQ(sqlite_.opened(), 2);

  SqlConnectionPool patient(sqlite_.factory(), 1, 30s);
  auto held = MustAcquire(patient);
  ASSERT_NE(held, nullptr);
  SqlConnection* const connection = &**held;
  std::atomic<SqlConnection*> got{nullptr};
  std::thread waiter([&] {
    std::unique_ptr<SqlConnectionPool::Lease> lease;
    Status status = patient.Acquire(&lease);
    EXPECT_TRUE(status.ok()) << status;
    if (lease) got = &**lease;
  });
  held.reset();
  waiter.join();
  EXPECT_EQ(got.load(), connection);
  EXPECT_EQ(sqlite_.opened(), 3);
}

TEST_F(SqlConnectionPoolTest, ManyThreadsNeverHoldMoreThanMaxSize) {
  constexpr size_t kMaxSize = 3;
  SqlConnectionPool pool(sqlite_.factory(), kMaxSize, 30s);
  std::atomic<int> holding{0};
  std::atomic<int> most{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        std::unique_ptr<SqlConnectionPool::Lease> lease;
        Status s = pool.Acquire(&lease);
        ASSERT_TRUE(s.ok()) << s;
        const int now = ++holding;
        int seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        std::vector<SqlRow> rows;
        s = lease->Check((*lease)->Query("SELECT 1", {}, &rows));
        EXPECT_TRUE(s.ok()) << s;
        --holding;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_LE(most.load(), static_cast<int>(kMaxSize));
  EXPECT_LE(sqlite_.opened(), static_cast<int>(kMaxSize));
}

TEST_F(SqlConnectionPoolTest, AConnectionCheckedUnavailableIsReplaced) {
  SqlConnectionPool pool(sqlite_.factory(), 1);
  {
    auto lease = MustAcquire(pool);
    ASSERT_NE(lease, nullptr);
    const Status broken(StatusCode::UNAVAILABLE, "connection reset");
    EXPECT_EQ(lease->Check(broken).code(), StatusCode::UNAVAILABLE);
  }
  auto fresh = MustAcquire(pool);
  EXPECT_NE(fresh, nullptr);
  EXPECT_EQ(sqlite_.opened(), 2);
  // Other errors leave the connection in the pool.
  EXPECT_EQ(fresh->Check(Status(StatusCode::ALREADY_EXISTS, "duplicate")).code(),
            StatusCode::ALREADY_EXISTS);
  fresh.reset();
  auto same = MustAcquire(pool);
  EXPECT_NE(same, nullptr);
  EXPECT_EQ(sqlite_.opened(), 2);
}

TEST_F(SqlConnectionPoolTest, AFailedOpenGivesItsSlotBack) {
  std::atomic<int> calls{0};
  SqlConnectionPool::Factory real = sqlite_.factory();
  SqlConnectionPool pool(
      [&](std::unique_ptr<SqlConnection>* out) {
        if (++calls == 1) return Status(StatusCode::UNAVAILABLE, "database starting");
        return real(out);
      },
      1, 100ms);
  std::unique_ptr<SqlConnectionPool::Lease> lease;
  Status s = pool.Acquire(&lease);
  EXPECT_EQ(s.code(), StatusCode::UNAVAILABLE) << s;
  EXPECT_EQ(s.message(), "database starting");
  s = pool.Acquire(&lease);
  EXPECT_TRUE(s.ok()) << s;
}

// Its own server: restarting the shared one would disturb the other tests.
TEST(SqlConnectionPoolRestartTest, MariaDbConnectionsHealAfterTheServerRestarts) {
  testsupport::MariaDbServer server;
  ASSERT_TRUE(server.Start());
  const MariaDbOptions options = FreshMariaDbOptions(server);
  CountingFactory mariadb([options](std::unique_ptr<SqlConnection>* out) {
    return MariaDbConnection::Open(options, out);
  });
  SqlConnectionPool pool(mariadb.factory(), 2);
  auto run = [&pool](std::string_view sql, std::vector<SqlRow>* rows) {
    std::unique_ptr<SqlConnectionPool::Lease> lease;
    if (Status s = pool.Acquire(&lease); !s.ok()) return s;
    return lease->Check((*lease)->Query(sql, {}, rows));
  };
  std::vector<SqlRow> rows;
  ASSERT_TRUE(run("CREATE TABLE kept (id BIGINT PRIMARY KEY)", &rows).ok());
  ASSERT_TRUE(run("INSERT INTO kept VALUES (7)", &rows).ok());
  ASSERT_EQ(mariadb.opened(), 1);

  ASSERT_TRUE(server.Restart());
  // The idle connection died with the old server: the call that meets it fails and it is
  // dropped; the next call opens a fresh one and sees the committed row.
  Status s = run("SELECT id FROM kept", &rows);
  EXPECT_EQ(s.code(), StatusCode::UNAVAILABLE) << s;
  rows.clear();
  s = run("SELECT id FROM kept", &rows);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(AsInt(rows[0][0]), 7);
  EXPECT_EQ(mariadb.opened(), 2);

  // While the server is down no connection can be had; once it is back, one can.
  server.Kill();
  s = run("SELECT id FROM kept", &rows);
  EXPECT_EQ(s.code(), StatusCode::UNAVAILABLE) << s;
  s = run("SELECT id FROM kept", &rows);
  EXPECT_EQ(s.code(), StatusCode::UNAVAILABLE) << s;
  EXPECT_NE(s.message().find(std::to_string(server.port())), std::string::npos) << s;
  ASSERT_TRUE(server.Start());
  rows.clear();
  s = run("SELECT id FROM kept", &rows);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(rows.size(), 1u);
}

}  // namespace
}  // namespace ferry::storage::testing
