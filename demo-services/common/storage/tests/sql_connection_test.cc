// SqlConnection's contract, the same cases on both adapters (a real SQLite file and a real
// MariaDB): values of any bytes round trip, a transaction rolled back after an error leaves
// nothing behind, errors map to the documented statuses, and a snapshot reads one state while
// others commit. Then each adapter's own options, and SQLite connections opening a new file at
// once.

#include <gtest/gtest.h>

#include <latch>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ferry/storage/mariadb_connection.h"
#include "ferry/storage/sql_connection.h"
#include "ferry/storage/sqlite_connection.h"
#include "sql_test_databases.h"

namespace ferry::storage::testing {
namespace {

constexpr std::string_view kSchema =
    "CREATE TABLE parent (id BIGINT NOT NULL PRIMARY KEY);"
    "CREATE TABLE item (id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(64) NOT NULL,"
    " payload BLOB, parent_id BIGINT, UNIQUE (name),"
    " FOREIGN KEY (parent_id) REFERENCES parent (id))";

// Every byte value, NUL and quotes and backslashes and '?' among them, and invalid UTF-8.
std::string AllBytes() {
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes.push_back(static_cast<char>(i));
  return bytes + std::string("\0'\\?\"\xff\xfe", 7);
}

class SqlConnectionTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    factory_ = FreshDatabase(GetParam(), dir_);
    ASSERT_TRUE(factory_);
    db_ = Open();
    ASSERT_NE(db_, nullptr);
    Status s = db_->ExecuteScript(kSchema);
    ASSERT_TRUE(s.ok()) << s;
  }

  std::unique_ptr<SqlConnection> Open() {
    std::unique_ptr<SqlConnection> connection;
    Status s = factory_(&connection);
    EXPECT_TRUE(s.ok()) << s;
    return connection;
  }

  static int64_t Count(SqlConnection& db) {
    std::vector<SqlRow> rows;
    Status s = db.Query("SELECT COUNT(*) FROM item", {}, &rows);
    EXPECT_TRUE(s.ok()) << s;
    return rows.size() == 1 ? AsInt(rows[0][0]) : -1;
  }

  TempDir dir_;
  SqlConnectionPool::Factory factory_;
  std::unique_ptr<SqlConnection> db_;
};

TEST_P(SqlConnectionTest, DialectNamesTheAdapter) {
  EXPECT_EQ(db_->dialect(),
            GetParam() == Backend::kSqlite ? SqlDialect::kSqlite : SqlDialect::kMariaDb);
}

TEST_P(SqlConnectionTest, ValuesOfAnyBytesRoundTrip) {
  const std::string bytes = AllBytes();
  const std::string text = "na\xc3\xafve \xe2\x9c\x93 'quoted' \\ ?";
  int64_t affected = 0;
  Status s = db_->Execute("INSERT INTO item (id, name, payload) VALUES (?, ?, ?)",
                          {int64_t{1}, text, bytes}, &affected);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(affected, 1);

  std::vector<SqlRow> rows;
  s = db_->Query("SELECT id, name, payload, parent_id FROM item WHERE payload = ?", {bytes}, &rows);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(AsInt(rows[0][0]), 1);
  EXPECT_EQ(AsText(rows[0][1]), text);
  EXPECT_EQ(AsText(rows[0][2]), bytes);
  EXPECT_TRUE(std::holds_alternative<std::nullptr_t>(rows[0][3]));
}

TEST_P(SqlConnectionTest, ATransactionRolledBackAfterAnErrorLeavesNothing) {
  ASSERT_TRUE(db_->Begin().ok());
  ASSERT_TRUE(db_->Execute("INSERT INTO item (id, name) VALUES (?, ?)", {int64_t{1}, "a"}).ok());
  Status s = db_->Execute("INSERT INTO item (id, name) VALUES (?, ?)", {int64_t{2}, "a"});
  ASSERT_EQ(s.code(), StatusCode::ALREADY_EXISTS) << s;
  db_->Rollback();
  EXPECT_EQ(Count(*db_), 0);
  std::unique_ptr<SqlConnection> other = Open();
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(Count(*other), 0);

  // The connection is usable afterwards, and a committed transaction is seen by others.
  ASSERT_TRUE(db_->Begin().ok());
  ASSERT_TRUE(db_->Execute("INSERT INTO item (id, name) VALUES (?, ?)", {int64_t{1}, "a"}).ok());
  ASSERT_TRUE(db_->Commit().ok());
  EXPECT_EQ(Count(*other), 1);
}

TEST_P(SqlConnectionTest, ErrorsMapToTheDocumentedStatuses) {
  ASSERT_TRUE(db_->Execute("INSERT INTO item (id, name) VALUES (?, ?)", {int64_t{1}, "a"}).ok());
  // A unique key refusing the row, by primary key and by a UNIQUE column.
  Status s = db_->Execute("INSERT INTO item (id, name) VALUES (?, ?)", {int64_t{1}, "b"});
  EXPECT_EQ(s.code(), StatusCode::ALREADY_EXISTS) << s;
  s = db_->Execute("INSERT INTO item (id, name) VALUES (?, ?)", {int64_t{2}, "a"});
  EXPECT_EQ(s.code(), StatusCode::ALREADY_EXISTS) << s;
  // Other constraints are wrong statements, not rows written first by someone else.
  s = db_->Execute("INSERT INTO item (id, name) VALUES (?, ?)", {int64_t{3}, nullptr});
  EXPECT_EQ(s.code(), StatusCode::INTERNAL) << s;
  s = db_->Execute("INSERT INTO item (id, name, parent_id) VALUES (?, ?, ?)",
                   {int64_t{4}, "d", int64_t{99}});
  EXPECT_EQ(s.code(), StatusCode::INTERNAL) << s;
  s = db_->Execute("INSERT INTO no_such_table VALUES (1)", {});
  EXPECT_EQ(s.code(), StatusCode::INTERNAL) << s;
  s = db_->Execute("INSERT INTO item (id, name) VALUES (?, ?)", {int64_t{5}, "e", int64_t{6}});
  EXPECT_EQ(s.code(), StatusCode::INTERNAL) << s;
  EXPECT_EQ(Count(*db_), 1);
}

// Statements run again (SQLite keeps them prepared): after a failure, after the schema
// changed under them, and after more distinct statements than are kept.
TEST_P(SqlConnectionTest, AStatementRunAgainSeesItsNewParametersAndTheSchemaAsItIs) {
  const std::string insert = "INSERT INTO item (id, name) VALUES (?, ?)";
  for (int64_t id = 1; id <= 3; ++id) {
    ASSERT_TRUE(db_->Execute(insert, {id, "n" + std::to_string(id)}).ok());
  }
  EXPECT_EQ(db_->Execute(insert, {int64_t{1}, "again"}).code(), StatusCode::ALREADY_EXISTS);
  ASSERT_TRUE(db_->Execute(insert, {int64_t{4}, "n4"}).ok());  // the failed run left it usable
  std::vector<SqlRow> rows;
  ASSERT_TRUE(db_->Query("SELECT name FROM item WHERE id = ?", {int64_t{4}}, &rows).ok());
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(AsText(rows[0][0]), "n4");
  // A column added after the query was first run is in its rows now.
  rows.clear();
  ASSERT_TRUE(db_->Query("SELECT * FROM item WHERE id = ?", {int64_t{4}}, &rows).ok());
  const size_t columns = rows.at(0).size();
  ASSERT_TRUE(db_->ExecuteScript("ALTER TABLE item ADD COLUMN extra INTEGER DEFAULT 7").ok());
  rows.clear();
  ASSERT_TRUE(db_->Query("SELECT * FROM item WHERE id = ?", {int64_t{4}}, &rows).ok());
  ASSERT_EQ(rows.at(0).size(), columns + 1);
  EXPECT_EQ(AsInt(rows[0].back()), 7);
  // 200 distinct statements, then the first again.
  for (int i = 0; i < 200; ++i) {
    rows.clear();
    ASSERT_TRUE(db_->Query("SELECT " + std::to_string(i), {}, &rows).ok());
    ASSERT_EQ(AsInt(rows.at(0).at(0)), i);
  }
  rows.clear();
  ASSERT_TRUE(db_->Query("SELECT name FROM item WHERE id = ?", {int64_t{2}}, &rows).ok());
  EXPECT_EQ(AsText(rows.at(0).at(0)), "n2");
}

TEST_P(SqlConnectionTest, ASnapshotReadsOneStateWhileOthersCommit) {
  std::unique_ptr<SqlConnection> writer = Open();
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(db_->BeginSnapshot().ok());
  EXPECT_EQ(Count(*db_), 0);
  ASSERT_TRUE(writer->Begin().ok());
  ASSERT_TRUE(writer->Execute("INSERT INTO item (id, name) VALUES (?, ?)", {int64_t{1}, "a"}).ok());
  ASSERT_TRUE(writer->Commit().ok());
  EXPECT_EQ(Count(*db_), 0);
  ASSERT_TRUE(db_->Commit().ok());
  EXPECT_EQ(Count(*db_), 1);
}

INSTANTIATE_TEST_SUITE_P(Adapters, SqlConnectionTest,
                         ::testing::Values(Backend::kSqlite, Backend::kMariaDb), BackendName);

// One row of a single-column query, as text.
std::string QueryText(SqlConnection& db, std::string_view sql) {
  std::vector<SqlRow> rows;
  Status s = db.Query(sql, {}, &rows);
  EXPECT_TRUE(s.ok()) << s;
  return rows.size() == 1 && rows[0].size() == 1 ? AsText(rows[0][0]) : "(no single value)";
}

TEST(SqliteOptionsTest, EveryConnectionSetsThePragmasOfItsOptions) {
  TempDir dir;
  const std::string path = (dir.path() / "options.db").string();
  std::unique_ptr<SqlConnection> defaults;
  ASSERT_TRUE(SqliteConnection::Open({.path = path}, &defaults).ok());
  EXPECT_EQ(QueryText(*defaults, "PRAGMA journal_mode"), "wal");
  EXPECT_EQ(QueryText(*defaults, "PRAGMA synchronous"), "2");  // FULL
  EXPECT_EQ(QueryText(*defaults, "PRAGMA foreign_keys"), "1");

  std::unique_ptr<SqlConnection> relaxed;
  ASSERT_TRUE(SqliteConnection::Open(
                  {.path = path, .synchronous = SqliteSynchronous::kNormal, .foreign_keys = false},
                  &relaxed)
                  .ok());
  EXPECT_EQ(QueryText(*relaxed, "PRAGMA synchronous"), "1");  // NORMAL
  EXPECT_EQ(QueryText(*relaxed, "PRAGMA foreign_keys"), "0");

  std::unique_ptr<SqlConnection> rollback_journal;
  const SqliteOptions delete_mode{.path = (dir.path() / "delete.db").string(),
                                  .journal_mode = SqliteJournalMode::kDelete};
  ASSERT_TRUE(SqliteConnection::Open(delete_mode, &rollback_journal).ok());
  EXPECT_EQ(QueryText(*rollback_journal, "PRAGMA journal_mode"), "delete");
}

TEST(SqliteOptionsTest, ConnectionsOpeningANewFileAtOnceAllGetWal) {
  TempDir dir;
  constexpr int kFiles = 50;
  constexpr int kConnections = 4;
  for (int f = 0; f < kFiles; ++f) {
    const SqliteOptions options{.path = (dir.path() / (std::to_string(f) + ".db")).string()};
    std::latch start(kConnections);
    std::vector<std::unique_ptr<SqlConnection>> connections(kConnections);
    std::vector<Status> opened(kConnections);
    std::vector<std::thread> threads;
    for (int c = 0; c < kConnections; ++c) {
      threads.emplace_back([&, c] {
        start.arrive_and_wait();
        opened[c] = SqliteConnection::Open(options, &connections[c]);
      });
    }
    for (auto& thread : threads) thread.join();
    for (int c = 0; c < kConnections; ++c) {
      ASSERT_TRUE(opened[c].ok()) << "file " << f << ": " << opened[c];
      EXPECT_EQ(QueryText(*connections[c], "PRAGMA journal_mode"), "wal");
    }
  }
}

TEST(SqliteOptionsTest, AFileThatCannotBeOpenedIsUnavailable) {
  TempDir dir;
  std::unique_ptr<SqlConnection> connection;
  Status s =
      SqliteConnection::Open({.path = (dir.path() / "missing" / "x.db").string()}, &connection);
  EXPECT_EQ(s.code(), StatusCode::UNAVAILABLE) << s;
  EXPECT_EQ(connection, nullptr);
}

TEST(MariaDbOptionsTest, TheSessionFollowsItsOptions) {
  testsupport::MariaDbServer* server = SharedMariaDb();
  ASSERT_NE(server, nullptr);
  MariaDbOptions options = FreshMariaDbOptions(*server);
  std::unique_ptr<SqlConnection> defaults;
  Status s = MariaDbConnection::Open(options, &defaults);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(QueryText(*defaults, "SELECT DATABASE()"), options.database);
  EXPECT_EQ(QueryText(*defaults, "SELECT @@SESSION.tx_isolation"), "REPEATABLE-READ");

  options.isolation = MariaDbIsolation::kReadCommitted;
  std::unique_ptr<SqlConnection> read_committed;
  ASSERT_TRUE(MariaDbConnection::Open(options, &read_committed).ok());
  EXPECT_EQ(QueryText(*read_committed, "SELECT @@SESSION.tx_isolation"), "READ-COMMITTED");
  // A snapshot is one read view whatever the session's level, and the level comes back after.
  ASSERT_TRUE(read_committed->BeginSnapshot().ok());
  ASSERT_TRUE(read_committed->Commit().ok());
  EXPECT_EQ(QueryText(*read_committed, "SELECT @@SESSION.tx_isolation"), "READ-COMMITTED");

  options.database.clear();
  std::unique_ptr<SqlConnection> no_database;
  ASSERT_TRUE(MariaDbConnection::Open(options, &no_database).ok());
  EXPECT_EQ(QueryText(*no_database, "SELECT DATABASE() IS NULL"), "1");

  options.database = "bad`name";
  std::unique_ptr<SqlConnection> refused;
  s = MariaDbConnection::Open(options, &refused);
  EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT) << s;
}

}  // namespace
}  // namespace ferry::storage::testing
