#include "ferry/framework/config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace ferry {
namespace {

using namespace std::chrono_literals;

constexpr const char* kFullConfig = R"(
log:
  level: debug
server:
  listen: 0.0.0.0:7001
  io_threads: 2
  business_pool:
    threads: 8
    queue_capacity: 500
  grace_period_ms: 3000
  idle_timeout_ms: 0
  compression:
    algorithm: zstd
    threshold_bytes: 1024
    level: 3
  max_frame_bytes: 1048576
client:
  target: 127.0.0.1:7001
  timeout_ms: 250
  connect_timeout_ms: 100
  serializer: json
  compression:
    algorithm: none
    threshold_bytes: 0
    level: 5
  io_threads: 3
  reconnect:
    initial_ms: 10
    max_ms: 500
  heartbeat:
    interval_ms: 1000
    timeout_ms: 3000
  max_frame_bytes: 65536
service:
  greeting: hello
  limits: [1, 2]
)";

Status Parse(const std::string& yaml, Config* out = nullptr) {
  Config ignored;
  return ParseConfig(yaml, "echo.yaml", out != nullptr ? out : &ignored);
}

TEST(ConfigTest, ReadsEveryKey) {
  Config c;
  Status s = Parse(kFullConfig, &c);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(c.log.level, "debug");
  EXPECT_EQ(c.server.listen, "0.0.0.0:7001");
  EXPECT_EQ(c.server.io_threads, 2u);
  EXPECT_EQ(c.server.worker_threads, 8u);
  EXPECT_EQ(c.server.queue_capacity, 500u);
  EXPECT_EQ(c.server.grace_period, 3000ms);
  EXPECT_EQ(c.server.idle_timeout, 0ms);
  EXPECT_EQ(c.server.compression, "zstd");
  EXPECT_EQ(c.server.compress_threshold, 1024u);
  EXPECT_EQ(c.server.compression_level, 3);
  EXPECT_EQ(c.server.max_frame_bytes, 1048576u);
  EXPECT_EQ(c.client.target, "127.0.0.1:7001");
  EXPECT_EQ(c.client.default_timeout, 250ms);
  EXPECT_EQ(c.client.connect_timeout, 100ms);
  EXPECT_EQ(c.client.serializer, "json");
  EXPECT_EQ(c.client.compression, "none");
  EXPECT_EQ(c.client.compress_threshold, 0u);
  EXPECT_EQ(c.client.compression_level, 5);
  EXPECT_EQ(c.client.io_threads, 3u);
  EXPECT_EQ(c.client.reconnect_initial, 10ms);
  EXPECT_EQ(c.client.reconnect_max, 500ms);
  EXPECT_EQ(c.client.heartbeat_interval, 1000ms);
  EXPECT_EQ(c.client.heartbeat_timeout, 3000ms);
  EXPECT_EQ(c.client.max_frame_bytes, 65536u);
  EXPECT_NE(c.service_yaml.find("greeting: hello"), std::string::npos) << c.service_yaml;
  EXPECT_NE(c.service_yaml.find("limits:"), std::string::npos) << c.service_yaml;
}

TEST(ConfigTest, AbsentKeysKeepTheirDefaults) {
  Config c;
  c.server.io_threads = 99;  // overwritten: the result is a fresh Config
  ASSERT_TRUE(Parse("", &c).ok());
  const Config defaults;
  EXPECT_EQ(c.log.level, defaults.log.level);
  EXPECT_EQ(c.server.io_threads, defaults.server.io_threads);
  EXPECT_EQ(c.server.queue_capacity, defaults.server.queue_capacity);
  EXPECT_EQ(c.client.serializer, defaults.client.serializer);
  EXPECT_TRUE(c.service_yaml.empty());

  ASSERT_TRUE(Parse("server:\n  io_threads: 4\nclient:\n", &c).ok());
  EXPECT_EQ(c.server.io_threads, 4u);
  EXPECT_EQ(c.server.worker_threads, defaults.server.worker_threads);
}

TEST(ConfigTest, NamesTheFileAndFullKeyPathOfAWrongType) {
  Status s = Parse("server:\n  business_pool:\n    threads: abc\n");
  EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(s.message(),
            "echo.yaml: server.business_pool.threads: expected an integer from 1 to 1024, got "
            "'abc' (line 3)");

  s = Parse("server:\n  listen: [a, b]\n");
  EXPECT_EQ(s.message(), "echo.yaml: server.listen: expected a string, got a list (line 2)");

  s = Parse("server: 5\n");
  EXPECT_EQ(s.message(), "echo.yaml: server: expected a mapping, got '5' (line 1)");

  s = Parse("client:\n  timeout_ms: 1.5\n");
  EXPECT_EQ(s.message(),
            "echo.yaml: client.timeout_ms: expected an integer from 1 to 86400000, got '1.5' "
            "(line 2)");
}

TEST(ConfigTest, RejectsOutOfRangeValues) {
  struct Case {
    std::string yaml;
    std::string key_path;
  };
  const Case cases[] = {
      {"server:\n  io_threads: 0\n", "server.io_threads"},
      {"server:\n  business_pool:\n    queue_capacity: -1\n",
       "server.business_pool.queue_capacity"},
      {"server:\n  max_frame_bytes: 10\n", "server.max_frame_bytes"},
      {"server:\n  compression:\n    level: 99\n", "server.compression.level"},
      {"server:\n  grace_period_ms: -5\n", "server.grace_period_ms"},
      {"client:\n  reconnect:\n    initial_ms: 100\n    max_ms: 50\n", "client.reconnect.max_ms"},
      {"client:\n  heartbeat:\n    interval_ms: 100\n    timeout_ms: 100\n",
       "client.heartbeat.timeout_ms"},
  };
  for (const Case& c : cases) {
    Status s = Parse(c.yaml);
    EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT) << c.yaml;
    EXPECT_EQ(s.message().rfind("echo.yaml: " + c.key_path + ": ", 0), 0u) << s;
  }
}

TEST(ConfigTest, RejectsUnknownKeysAtEveryLevel) {
  Status s = Parse("sever:\n  io_threads: 2\n");
  EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(
      s.message(),
      "echo.yaml: sever: unknown key (expected one of: client log plugins provider registry server "
      "service) (line 1)");

  s = Parse("server:\n  business_pool:\n    thread: 2\n");
  EXPECT_EQ(s.message(),
            "echo.yaml: server.business_pool.thread: unknown key (expected one of: "
            "queue_capacity threads) (line 3)");

  s = Parse("client:\n  heartbeat:\n    interval: 5\n");
  EXPECT_EQ(s.message().rfind("echo.yaml: client.heartbeat.interval: unknown key", 0), 0u) << s;
}

TEST(ConfigTest, RejectsUnknownNames) {
  Status s = Parse("client:\n  serializer: xml\n");
  EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(s.message().rfind("echo.yaml: client.serializer: unknown serializer 'xml'", 0), 0u)
      << s;
  EXPECT_NE(s.message().find("protobuf"), std::string::npos) << s;

  s = Parse("server:\n  compression:\n    algorithm: lz4\n");
  EXPECT_EQ(s.message().rfind("echo.yaml: server.compression.algorithm: unknown compression "
                              "algorithm 'lz4' (expected one of: none, zstd)",
                              0),
            0u)
      << s;

  s = Parse("log:\n  level: verbose\n");
  EXPECT_EQ(s.message(),
            "echo.yaml: log.level: unknown log level 'verbose' (expected one of: trace, debug, "
            "info, warn, error, off) (line 2)");
}

TEST(ConfigTest, RejectsAnUnparsableListenAddress) {
  for (const char* listen : {"7001", "localhost:http", "::1:7001", ":7001", "host:70000"}) {
    Status s = Parse(std::string("server:\n  listen: \"") + listen + "\"\n");
    EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT) << listen;
    EXPECT_EQ(s.message().rfind("echo.yaml: server.listen: invalid endpoint", 0), 0u) << s;
  }
  EXPECT_TRUE(Parse("server:\n  listen: \"[::1]:7001\"\n").ok());
}

TEST(ConfigTest, SyntaxErrorsNameTheFileAndLine) {
  Status s = Parse("server:\n  io_threads: 2\n  listen: [unclosed\n");
  EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(s.message().rfind("echo.yaml: line ", 0), 0u) << s;
  EXPECT_NE(s.message().find("invalid YAML"), std::string::npos) << s;

  s = Parse("- just\n- a list\n");
  EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(s.message().rfind("echo.yaml: expected a mapping", 0), 0u) << s;
}

TEST(ConfigTest, LeavesTheOutputUntouchedOnError) {
  Config c;
  c.server.io_threads = 7;
  EXPECT_FALSE(Parse("server:\n  io_threads: 2\n  bogus: 1\n", &c).ok());
  EXPECT_EQ(c.server.io_threads, 7u);
}

TEST(ConfigTest, LoadsAFileAndNamesItInErrors) {
  char dir_template[] = "/tmp/ferry-config-test-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  const std::string good = dir + "/good.yaml";
  const std::string bad = dir + "/bad.yaml";
  std::ofstream(good) << "server:\n  io_threads: 3\n";
  std::ofstream(bad) << "server:\n  io_threads: many\n";

  Config c;
  Status s = LoadConfigFile(good, &c);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(c.server.io_threads, 3u);

  s = LoadConfigFile(bad, &c);
  EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(s.message().rfind(bad + ": server.io_threads: ", 0), 0u) << s;

  s = LoadConfigFile(dir + "/missing.yaml", &c);
  EXPECT_EQ(s.code(), StatusCode::NOT_FOUND);
  EXPECT_NE(s.message().find("missing.yaml"), std::string::npos) << s;

  std::remove(good.c_str());
  std::remove(bad.c_str());
  rmdir(dir.c_str());
}

}  // namespace
}  // namespace ferry
