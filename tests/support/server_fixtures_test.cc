// The Redis and MariaDB fixtures against the real servers: they start, answer, keep their
// port across restarts, and lose (or keep) data as documented.

#include <gtest/gtest.h>
#include <hiredis.h>
#include <mysql.h>
#include <mysqld_error.h>

#include <memory>
#include <string>

#include "mariadb_server.h"
#include "redis_server.h"

namespace ferry::testsupport {
namespace {

// ---- Redis ---------------------------------------------------------------------------------

struct RedisFree {
  void operator()(redisContext* context) const { redisFree(context); }
};
using RedisConnection = std::unique_ptr<redisContext, RedisFree>;

RedisConnection ConnectRedis(const RedisServer& server) {
  const timeval timeout{.tv_sec = 5, .tv_usec = 0};
  RedisConnection context(redisConnectWithTimeout(server.host().c_str(), server.port(), timeout));
  if (context && context->err == 0) redisSetTimeout(context.get(), timeout);
  return context;
}

// The reply to `command` as text: the string or status, "(nil)", or "ERR:<message>".
template <typename... Args>
std::string Command(redisContext* context, const char* format, Args... args) {
  auto* reply = static_cast<redisReply*>(redisCommand(context, format, args...));
  if (reply == nullptr) return "no reply: " + std::string(context->errstr);
  std::string text;
  switch (reply->type) {
    case REDIS_REPLY_STRING:
    case REDIS_REPLY_STATUS:
      text.assign(reply->str, reply->len);
      break;
    case REDIS_REPLY_NIL:
      text = "(nil)";
      break;
    case REDIS_REPLY_INTEGER:
      text = std::to_string(reply->integer);
      break;
    case REDIS_REPLY_ERROR:
      text = "ERR:" + std::string(reply->str, reply->len);
      break;
    default:
      text = "reply type " + std::to_string(reply->type);
  }
  freeReplyObject(reply);
  return text;
}

TEST(RedisServerTest, SetGetRoundTrip) {
  RedisServer server;
  ASSERT_TRUE(server.Start());
  EXPECT_NE(server.port(), 0);
  EXPECT_NE(server.port(), 6379);
  EXPECT_EQ(server.host(), "127.0.0.1");

  RedisConnection redis = ConnectRedis(server);
  ASSERT_TRUE(redis && redis->err == 0) << (redis ? redis->errstr : "no context");
  EXPECT_EQ(Command(redis.get(), "SET %s %s", "ferry:key", "value with spaces"), "OK");
  EXPECT_EQ(Command(redis.get(), "GET %s", "ferry:key"), "value with spaces");
  EXPECT_EQ(Command(redis.get(), "GET %s", "ferry:missing"), "(nil)");
  // Nothing is persisted by default.
  EXPECT_EQ(Command(redis.get(), "CONFIG GET %s", "save"), "reply type 2");
  EXPECT_EQ(Command(redis.get(), "DBSIZE"), "1");
}

TEST(RedisServerTest, RestartEmptyLosesDataAndKeepsPort) {
  RedisServer server;
  ASSERT_TRUE(server.Start());
  const uint16_t port = server.port();
  {
    RedisConnection redis = ConnectRedis(server);
    ASSERT_TRUE(redis && redis->err == 0);
    ASSERT_EQ(Command(redis.get(), "SET %s %s", "ferry:key", "1"), "OK");
  }

  ASSERT_TRUE(server.RestartEmpty());
  EXPECT_TRUE(server.running());
  EXPECT_EQ(server.port(), port);
  RedisConnection redis = ConnectRedis(server);
  ASSERT_TRUE(redis && redis->err == 0);
  EXPECT_EQ(Command(redis.get(), "GET %s", "ferry:key"), "(nil)");
  EXPECT_EQ(Command(redis.get(), "DBSIZE"), "0");

  server.Kill();
  EXPECT_FALSE(server.running());
  RedisConnection refused = ConnectRedis(server);
  EXPECT_TRUE(!refused || refused->err != 0);
}

TEST(RedisServerTest, AppendOnlyKeepsDataAcrossRestart) {
  RedisServer server(RedisServerOptions{.appendonly = true});
  ASSERT_TRUE(server.Start());
  const uint16_t port = server.port();
  {
    RedisConnection redis = ConnectRedis(server);
    ASSERT_TRUE(redis && redis->err == 0);
    ASSERT_EQ(Command(redis.get(), "SET %s %s", "ferry:kept", "yes"), "OK");
  }
  ASSERT_TRUE(server.Restart());
  EXPECT_EQ(server.port(), port);
  RedisConnection redis = ConnectRedis(server);
  ASSERT_TRUE(redis && redis->err == 0);
  EXPECT_EQ(Command(redis.get(), "GET %s", "ferry:kept"), "yes");
}

// ---- MariaDB -------------------------------------------------------------------------------

struct MysqlClose {
  void operator()(MYSQL* mysql) const { mysql_close(mysql); }
};
using MysqlConnection = std::unique_ptr<MYSQL, MysqlClose>;

// One server for the whole suite (under ctest each test runs in its own process, so this
// still means one start per test there, which the shared datadir template keeps cheap).
class MariaDbServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new MariaDbServer();
    start_result_ = new ::testing::AssertionResult(server_->Start());
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
    delete start_result_;
    start_result_ = nullptr;
  }
  void SetUp() override {
    ASSERT_TRUE(*start_result_);
    ASSERT_TRUE(server_->ResetDatabase());
    mysql_.reset(mysql_init(nullptr));
    ASSERT_NE(mysql_, nullptr);
    const unsigned int protocol = MYSQL_PROTOCOL_TCP;
    mysql_options(mysql_.get(), MYSQL_OPT_PROTOCOL, &protocol);
    ASSERT_NE(mysql_real_connect(mysql_.get(), server_->host().c_str(), server_->user().c_str(),
                                 server_->password().c_str(), server_->database().c_str(),
                                 server_->port(), nullptr, 0),
              nullptr)
        << mysql_error(mysql_.get());
  }

  // mysql_query's result: 0, or the MariaDB error number.
  unsigned int Query(const std::string& sql) {
    if (mysql_query(mysql_.get(), sql.c_str()) == 0) return 0;
    return mysql_errno(mysql_.get());
  }

  static MariaDbServer* server_;
  static ::testing::AssertionResult* start_result_;
  MysqlConnection mysql_;
};

MariaDbServer* MariaDbServerTest::server_ = nullptr;
::testing::AssertionResult* MariaDbServerTest::start_result_ = nullptr;

TEST_F(MariaDbServerTest, CreateInsertSelect) {
  EXPECT_NE(server_->port(), 3306);
  EXPECT_EQ(server_->database(), "ferry_test");
  ASSERT_EQ(Query("CREATE TABLE providers (id INT PRIMARY KEY AUTO_INCREMENT, "
                  "name VARCHAR(64) NOT NULL) ENGINE=InnoDB"),
            0u)
      << mysql_error(mysql_.get());
  ASSERT_EQ(Query("INSERT INTO providers (name) VALUES ('echo-1'), ('échο-2')"), 0u)
      << mysql_error(mysql_.get());
  EXPECT_EQ(mysql_affected_rows(mysql_.get()), 2u);

  ASSERT_EQ(Query("SELECT id, name FROM providers ORDER BY id"), 0u) << mysql_error(mysql_.get());
  MYSQL_RES* result = mysql_store_result(mysql_.get());
  ASSERT_NE(result, nullptr);
  std::vector<std::string> rows;
  while (MYSQL_ROW row = mysql_fetch_row(result)) {
    rows.push_back(std::string(row[0]) + ":" + row[1]);
  }
  mysql_free_result(result);
  EXPECT_EQ(rows, (std::vector<std::string>{"1:echo-1", "2:échο-2"}));

  // The fixture's own helper sees the same database.
  EXPECT_TRUE(server_->Execute("INSERT INTO providers (name) VALUES ('echo-3')"));
  ASSERT_EQ(Query("SELECT COUNT(*) FROM providers"), 0u);
  result = mysql_store_result(mysql_.get());
  ASSERT_NE(result, nullptr);
  MYSQL_ROW row = mysql_fetch_row(result);
  ASSERT_NE(row, nullptr);
  EXPECT_STREQ(row[0], "3");
  mysql_free_result(result);
}

TEST_F(MariaDbServerTest, UniqueViolationIsDupEntry) {
  ASSERT_TRUE(server_->Execute(
      "CREATE TABLE names (name VARCHAR(64) NOT NULL, UNIQUE KEY (name)) ENGINE=InnoDB;"
      "INSERT INTO names VALUES ('a')"));
  EXPECT_EQ(Query("INSERT INTO names VALUES ('a')"), static_cast<unsigned int>(ER_DUP_ENTRY));
  EXPECT_EQ(ER_DUP_ENTRY, 1062);
  EXPECT_STREQ(mysql_sqlstate(mysql_.get()), "23000");
  const ::testing::AssertionResult duplicate = server_->Execute("INSERT INTO names VALUES ('a')");
  EXPECT_FALSE(duplicate);
  EXPECT_NE(std::string(duplicate.message()).find("error 1062"), std::string::npos)
      << duplicate.message();
}

}  // namespace
}  // namespace ferry::testsupport
