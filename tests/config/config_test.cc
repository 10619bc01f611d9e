#include "ferry/framework/config.h"

#include <gmock/gmock.h>
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
  drain_delay_ms: 250
  idle_timeout_ms: 0
  compression:
    algorithm: zstd
    threshold_bytes: 1024
    level: 3
  max_frame_bytes: 1048576
clients:
  echo:
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
  EXPECT_EQ(c.server.drain_delay, 250ms);
  EXPECT_EQ(c.server.idle_timeout, 0ms);
  EXPECT_EQ(c.server.compression, "zstd");
  EXPECT_EQ(c.server.compress_threshold, 1024u);
  EXPECT_EQ(c.server.compression_level, 3);
  EXPECT_EQ(c.server.max_frame_bytes, 1048576u);
  ASSERT_EQ(c.clients.size(), 1u);
  const ClientOptions& client = c.clients.at("echo").cluster.client;
  EXPECT_EQ(client.target, "127.0.0.1:7001");
  EXPECT_EQ(client.default_timeout, 250ms);
  EXPECT_EQ(client.connect_timeout, 100ms);
  EXPECT_EQ(client.serializer, "json");
  EXPECT_EQ(client.compression, "none");
  EXPECT_EQ(client.compress_threshold, 0u);
  EXPECT_EQ(client.compression_level, 5);
  EXPECT_EQ(client.io_threads, 3u);
  EXPECT_EQ(client.reconnect_initial, 10ms);
  EXPECT_EQ(client.reconnect_max, 500ms);
  EXPECT_EQ(client.heartbeat_interval, 1000ms);
  EXPECT_EQ(client.heartbeat_timeout, 3000ms);
  EXPECT_EQ(client.max_frame_bytes, 65536u);
  ASSERT_TRUE(c.service.IsMap());
  EXPECT_EQ(c.service["greeting"].Scalar(), "hello");
  EXPECT_EQ(c.service["limits"].size(), 2u);
  EXPECT_EQ(c.source, "echo.yaml");
}

TEST(ConfigTest, TheServiceSectionIsReadWithLineNumbersLikeEverySection) {
  Config c;
  ASSERT_TRUE(Parse("server: {}\nservice:\n  greeting: hello\n  retries: many\n", &c).ok());
  std::string greeting;
  int64_t retries = 0;
  Status s = ReadServiceSection(c, [&](config::ConfigReader& service) {
    service.String("greeting", &greeting);
    service.Integer("retries", 0, 10, &retries);
  });
  EXPECT_EQ(greeting, "hello");
  EXPECT_EQ(s.message(),
            "echo.yaml:4: service.retries: expected an integer from 0 to 10, got 'many'");

  s = ReadServiceSection(
      c, [&](config::ConfigReader& service) { service.String("greeting", &greeting); });
  EXPECT_EQ(s.message().rfind("echo.yaml:4: service.retries: unknown key", 0), 0u) << s;

  Config empty;
  ASSERT_TRUE(Parse("", &empty).ok());
  EXPECT_TRUE(ReadServiceSection(empty, [&](config::ConfigReader& service) {
                service.String("greeting", &greeting);
              }).ok());
}

TEST(ConfigTest, ReadsTheServerLimitsAndRefusesAnOutboundLimitBelowItsHighWaterMark) {
  Config c;
  Status s = Parse(
      "server:\n  limits:\n    frame_timeout_ms: 500\n    outbound_high_water_bytes: 65536\n"
      "    max_outbound_bytes: 16777216\n    max_connections: 9\n"
      "    max_connections_per_peer: 3\n    max_buffered_bytes: 33554432\n"
      "    max_queued_bytes: 1048576\n",
      &c);
  ASSERT_TRUE(s.ok()) << s;
  const ConnectionLimits& limits = c.server.limits;
  EXPECT_EQ(limits.frame_timeout, 500ms);
  EXPECT_EQ(limits.outbound_high_water_bytes, 65536u);
  EXPECT_EQ(limits.max_outbound_bytes, 16777216u);
  EXPECT_EQ(limits.max_connections, 9u);
  EXPECT_EQ(limits.max_connections_per_peer, 3u);
  EXPECT_EQ(limits.max_buffered_bytes, 33554432u);
  EXPECT_EQ(limits.max_queued_bytes, 1048576u);
  s = Parse(
      "server:\n  limits:\n    outbound_high_water_bytes: 65536\n"
      "    max_outbound_bytes: 65536\n");
  EXPECT_EQ(s.message().rfind("echo.yaml:4: server.limits.max_outbound_bytes: must be greater", 0),
            0u)
      << s;
  // One answer of the largest frame must fit in what may wait to be written.
  s = Parse("server:\n  max_frame_bytes: 33554432\n  limits: {max_outbound_bytes: 16777216}\n");
  EXPECT_EQ(s.message().rfind("echo.yaml:2: server.max_frame_bytes: must not exceed", 0), 0u) << s;
}

TEST(ConfigTest, ReadsTheConnectionSlotLimitsAndNamesTheKeyOutOfRange) {
  Config c;
  Status s = Parse(
      "server:\n  limits:\n    first_byte_timeout_ms: 0\n    max_handshakes: 8\n"
      "    peer_prefix_v4: 24\n    peer_prefix_v6: 48\n",
      &c);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(c.server.limits.first_byte_timeout, 0ms);
  EXPECT_EQ(c.server.limits.max_handshakes, 8u);
  EXPECT_EQ(c.server.limits.peer_prefix_v4, 24u);
  EXPECT_EQ(c.server.limits.peer_prefix_v6, 48u);
  const ConnectionLimits defaults;
  EXPECT_EQ(defaults.first_byte_timeout, 10000ms);
  EXPECT_EQ(defaults.peer_prefix_v4, 32u);
  EXPECT_EQ(defaults.peer_prefix_v6, 64u);
  s = Parse("server:\n  limits:\n    peer_prefix_v4: 33\n");
  EXPECT_EQ(s.message().rfind("echo.yaml:3: server.limits.peer_prefix_v4:", 0), 0u) << s;
  s = Parse("server:\n  limits:\n    peer_prefix_v6: 0\n");
  EXPECT_EQ(s.message().rfind("echo.yaml:3: server.limits.peer_prefix_v6:", 0), 0u) << s;
  s = Parse("server:\n  limits:\n    max_handshakes: 0\n");
  EXPECT_EQ(s.message().rfind("echo.yaml:3: server.limits.max_handshakes:", 0), 0u) << s;
  s = Parse("server:\n  tls:\n    handshake_threads: 0\n");
  EXPECT_EQ(s.message().rfind("echo.yaml:3: server.tls.handshake_threads:", 0), 0u) << s;
}

TEST(ConfigTest, TheSingleClientSectionIsRefusedSayingWhatToWriteInstead) {
  const Status s = Parse("client:\n  target: 127.0.0.1:7001\n");
  EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(s.message().rfind("echo.yaml:1: client: the single client: section is now clients:", 0),
            0u)
      << s;
  EXPECT_NE(s.message().find("clients: {echo: {target: 127.0.0.1:7001}}"), std::string::npos) << s;
}

TEST(ConfigTest, AClientIsATargetOrAServiceNeverBoth) {
  Status s = Parse("clients:\n  a: {timeout_ms: 5}\n");
  EXPECT_EQ(s.message().rfind("echo.yaml:2: clients.a.service: set either target", 0), 0u) << s;
  s = Parse("clients:\n  a: {target: 127.0.0.1:1, service: x.Y}\n");
  EXPECT_EQ(s.message().rfind("echo.yaml:2: clients.a.target: target and service exclude", 0), 0u)
      << s;
  s = Parse("clients:\n  a: {target: 127.0.0.1:1, registry: static://127.0.0.1:2}\n");
  EXPECT_EQ(s.message().rfind("echo.yaml:2: clients.a.registry: only with service", 0), 0u) << s;
  s = Parse("clients:\n  a: {target: nowhere}\n");
  EXPECT_EQ(s.message().rfind("echo.yaml:2: clients.a.target: invalid endpoint", 0), 0u) << s;
}

TEST(ConfigTest, ReadsSeveralNamedClients) {
  Config c;
  Status s = Parse(
      "registry: {url: \"static://127.0.0.1:7001\"}\n"
      "clients:\n"
      "  echo: {target: 127.0.0.1:7002, timeout_ms: 100}\n"
      "  orders: {service: ferry.seckill.SeckillService, registry: \"static://127.0.0.1:7003\"}\n"
      "  users: {service: ferry.demo.EchoService, loadbalance: {name: random}}\n",
      &c);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(c.clients.size(), 3u);
  EXPECT_EQ(c.clients.at("echo").cluster.client.target, "127.0.0.1:7002");
  EXPECT_EQ(c.clients.at("echo").cluster.client.default_timeout, 100ms);
  EXPECT_EQ(c.clients.at("orders").cluster.service, "ferry.seckill.SeckillService");
  EXPECT_EQ(c.clients.at("orders").registry, "static://127.0.0.1:7003");
  EXPECT_EQ(c.clients.at("users").registry, "");
  EXPECT_EQ(c.clients.at("users").cluster.loadbalance.name, "random");
}

TEST(ConfigTest, AbsentKeysKeepTheirDefaults) {
  Config c;
  c.server.io_threads = 99;  // overwritten: the result is a fresh Config
  ASSERT_TRUE(Parse("", &c).ok());
  const Config defaults;
  EXPECT_EQ(c.log.level, defaults.log.level);
  EXPECT_EQ(c.server.io_threads, defaults.server.io_threads);
  EXPECT_EQ(c.server.queue_capacity, defaults.server.queue_capacity);
  EXPECT_TRUE(c.clients.empty());
  EXPECT_FALSE(c.service.IsDefined() && !c.service.IsNull());

  ASSERT_TRUE(Parse("server:\n  io_threads: 4\nclients:\n", &c).ok());
  EXPECT_EQ(c.server.io_threads, 4u);
  EXPECT_EQ(c.server.worker_threads, defaults.server.worker_threads);
}

TEST(ConfigTest, NamesTheFileAndFullKeyPathOfAWrongType) {
  Status s = Parse("server:\n  business_pool:\n    threads: abc\n");
  EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(s.message(),
            "echo.yaml:3: server.business_pool.threads: expected an integer from 1 to 1024, got "
            "'abc'");

  s = Parse("server:\n  listen: [a, b]\n");
  EXPECT_EQ(s.message(), "echo.yaml:2: server.listen: expected a string, got a list");

  s = Parse("server: 5\n");
  EXPECT_EQ(s.message(), "echo.yaml:1: server: expected a mapping, got '5'");

  s = Parse("clients:\n  echo:\n    target: 127.0.0.1:1\n    timeout_ms: 1.5\n");
  EXPECT_EQ(s.message(),
            "echo.yaml:4: clients.echo.timeout_ms: expected an integer from 1 to 86400000, got "
            "'1.5'");
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
      {"clients:\n  e:\n    target: 127.0.0.1:1\n    reconnect:\n      initial_ms: 100\n"
       "      max_ms: 50\n",
       "clients.e.reconnect.max_ms"},
      {"clients:\n  e:\n    target: 127.0.0.1:1\n    heartbeat:\n      interval_ms: 100\n"
       "      timeout_ms: 100\n",
       "clients.e.heartbeat.timeout_ms"},
  };
  for (const Case& c : cases) {
    Status s = Parse(c.yaml);
    EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT) << c.yaml;
    EXPECT_TRUE(s.message().starts_with("echo.yaml:")) << s;
    EXPECT_NE(s.message().find(": " + c.key_path + ": "), std::string::npos) << s;
  }
}

TEST(ConfigTest, RejectsUnknownKeysAtEveryLevel) {
  Status s = Parse("sever:\n  io_threads: 2\n");
  EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(s.message(),
            "echo.yaml:1: sever: unknown key (expected one of: allow_sample_secrets clients log "
            "plugins provider registry server service)");

  s = Parse("server:\n  business_pool:\n    thread: 2\n");
  EXPECT_EQ(s.message(),
            "echo.yaml:3: server.business_pool.thread: unknown key (expected one of: "
            "queue_capacity threads)");

  s = Parse("clients:\n  e:\n    target: 127.0.0.1:1\n    heartbeat:\n      interval: 5\n");
  EXPECT_EQ(s.message().rfind("echo.yaml:5: clients.e.heartbeat.interval: unknown key", 0), 0u)
      << s;
}

TEST(ConfigTest, RejectsAKeyGivenTwiceNamingBothLines) {
  Status s = Parse("server:\n  io_threads: 2\nlog: {level: info}\nserver:\n  io_threads: 3\n");
  EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(s.message(), "echo.yaml:4: server: given twice (first on line 1)");
  s = Parse("server:\n  business_pool: {threads: 1, threads: 2}\n");
  EXPECT_EQ(s.message().rfind("echo.yaml:2: server.business_pool.threads: given twice", 0), 0u)
      << s;
}

TEST(ConfigTest, RejectsUnknownNames) {
  Status s = Parse("clients:\n  e:\n    target: 127.0.0.1:1\n    serializer: xml\n");
  EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(s.message().rfind("echo.yaml:4: clients.e.serializer: unknown serializer 'xml'", 0), 0u)
      << s;
  EXPECT_NE(s.message().find("protobuf"), std::string::npos) << s;

  s = Parse("server:\n  compression:\n    algorithm: lz4\n");
  EXPECT_EQ(s.message().rfind("echo.yaml:3: server.compression.algorithm: unknown compression "
                              "algorithm 'lz4' (expected one of: none, zstd)",
                              0),
            0u)
      << s;

  s = Parse("log:\n  level: verbose\n");
  EXPECT_EQ(s.message(),
            "echo.yaml:2: log.level: unknown log level 'verbose' (expected one of: trace, debug, "
            "info, warn, error, off)");
}

TEST(ConfigTest, RejectsAnUnparsableListenAddress) {
  for (const char* listen : {"7001", "localhost:http", "::1:7001", ":7001", "host:70000"}) {
    Status s = Parse(std::string("server:\n  listen: \"") + listen + "\"\n");
    EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT) << listen;
    EXPECT_EQ(s.message().rfind("echo.yaml:2: server.listen: invalid endpoint", 0), 0u) << s;
  }
  EXPECT_TRUE(Parse("server:\n  listen: \"[::1]:7001\"\n").ok());
}

TEST(ConfigTest, ReadsTrustedProxiesAndRefusesAnEntryThatIsNoNetworkNamingItsLine) {
  Config config;
  ASSERT_TRUE(
      Parse("server:\n  http:\n    trusted_proxies: [127.0.0.1/32, 10.0.0.0/8, \"::1/128\", "
            "192.0.2.1]\n",
            &config)
          .ok());
  EXPECT_EQ(config.server.http.trusted_proxies,
            (std::vector<std::string>{"127.0.0.1/32", "10.0.0.0/8", "::1/128", "192.0.2.1"}));
  EXPECT_TRUE(Config().server.http.trusted_proxies.empty());

  const std::string prefix = "server:\n  http:\n    trusted_proxies:\n      - 10.0.0.0/8\n      - ";
  struct Case {
    const char* entry;
    const char* message;
  };
  for (const Case& bad : {
           Case{"10.0.0.0/33",
                "'10.0.0.0/33' is not a network: expected a prefix length from 0 "
                "to 32 after '/'"},
           Case{"\"::1/129\"",
                "'::1/129' is not a network: expected a prefix length from 0 to "
                "128 after '/'"},
           Case{"10.0.0.0/",
                "'10.0.0.0/' is not a network: expected a prefix length from 0 to 32 "
                "after '/'"},
           Case{"10.0.0.0/8x",
                "'10.0.0.0/8x' is not a network: expected a prefix length from 0 "
                "to 32 after '/'"},
           Case{"proxy.example",
                "'proxy.example' is not a network: expected an IP address, e.g. "
                "10.0.0.0/8 or ::1/128"},
           Case{"10.1.2.3/8",
                "'10.1.2.3/8' is not a network: it has host bits set (the network "
                "is 10.0.0.0/8)"},
       }) {
    const Status s = Parse(prefix + bad.entry + "\n");
    EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT) << bad.entry;
    EXPECT_EQ(s.message(),
              std::string("echo.yaml:5: server.http.trusted_proxies[1]: ") + bad.message);
  }
  EXPECT_EQ(Parse("server:\n  http: {trusted_proxies: 10.0.0.0/8}\n").message(),
            "echo.yaml:2: server.http.trusted_proxies: expected a list, got '10.0.0.0/8'");
}

TEST(ConfigTest, AdminNetworksAreLoopbackUnlessConfiguredAndCheckedLikeTrustedProxies) {
  EXPECT_EQ(Config().server.http.admin_networks,
            (std::vector<std::string>{"127.0.0.0/8", "::1/128"}));
  EXPECT_TRUE(Config().server.http.admin_hosts.empty());
  Config config;
  ASSERT_TRUE(Parse("server:\n  http:\n    admin_networks: [10.0.0.0/8, 192.0.2.1]\n"
                    "    admin_hosts: [ops.example.com, Status.Internal.]\n",
                    &config)
                  .ok());
  EXPECT_EQ(config.server.http.admin_networks,
            (std::vector<std::string>{"10.0.0.0/8", "192.0.2.1"}));
  EXPECT_EQ(config.server.http.admin_hosts,
            (std::vector<std::string>{"ops.example.com", "Status.Internal."}));
  ASSERT_TRUE(Parse("server:\n  http: {admin_networks: []}\n", &config).ok());
  EXPECT_TRUE(config.server.http.admin_networks.empty()) << "nobody: admin_listen alone";

  EXPECT_EQ(Parse("server:\n  http:\n    admin_networks:\n      - 10.0.0.0/8\n      - "
                  "10.1.2.3/8\n")
                .message(),
            "echo.yaml:5: server.http.admin_networks[1]: '10.1.2.3/8' is not a network: it has "
            "host bits set (the network is 10.0.0.0/8)");
  for (const char* host : {"ops.example.com:9100", "http://ops.example.com", "[::1]", "\"\""}) {
    const Status s = Parse(std::string("server:\n  http:\n    admin_hosts: [") + host + "]\n");
    EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT) << host;
    EXPECT_EQ(s.message().rfind("echo.yaml:3: server.http.admin_hosts[0]: ", 0), 0u) << s;
  }
}

TEST(ConfigTest, SampleSecretsAreRefusedUnlessTheFileAllowsThem) {
  const auto read_secret = [](bool allowed, const std::string& value) {
    config::ConfigErrors errors("s.yaml");
    errors.set_sample_secrets_allowed(allowed);
    config::ConfigReader reader(YAML::Load("{secret: " + value + "}"), "x", &errors);
    std::string secret;
    reader.Secret("secret", &secret);
    return errors.first();
  };
  EXPECT_THAT(read_secret(false, "change-me-too").message(),
              ::testing::HasSubstr("s.yaml:1: x.secret: is a sample secret of the shipped configs "
                                   "('change-me-too')"));
  EXPECT_TRUE(read_secret(true, "change-me-too").ok());
  EXPECT_TRUE(read_secret(false, "mine-not-change-me").ok());
}

TEST(ConfigTest, AllowSampleSecretsIsATopLevelKeyAndDevMarksEveryFilter) {
  Config plain;
  ASSERT_TRUE(ParseConfig("server:\n  listen: 127.0.0.1:0\n", "b.yaml", &plain).ok());
  EXPECT_FALSE(plain.allow_sample_secrets);
  Config allowed;
  ASSERT_TRUE(ParseConfig("allow_sample_secrets: true\n", "c.yaml", &allowed).ok());
  EXPECT_TRUE(allowed.allow_sample_secrets);

  plain.server.filters.push_back(FilterSpec::FromYaml("s", "{}"));
  plain.clients["c"].cluster.client.filters.push_back(FilterSpec::FromYaml("c", "{}"));
  AllowSampleSecrets(&plain);
  EXPECT_TRUE(plain.allow_sample_secrets);
  EXPECT_TRUE(plain.server.filters[0].allow_sample_secrets);
  EXPECT_TRUE(plain.clients["c"].cluster.client.filters[0].allow_sample_secrets);
}

TEST(ConfigTest, SyntaxErrorsNameTheFileAndLine) {
  Status s = Parse("server:\n  io_threads: 2\n  listen: [unclosed\n");
  EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT);
  // yaml-cpp finds the unclosed list where the input ends.
  EXPECT_EQ(s.message().rfind("echo.yaml:4:1: invalid YAML", 0), 0u) << s;
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
  EXPECT_EQ(s.message().rfind(bad + ":2: server.io_threads: ", 0), 0u) << s;

  s = LoadConfigFile(dir + "/missing.yaml", &c);
  EXPECT_EQ(s.code(), StatusCode::NOT_FOUND);
  EXPECT_NE(s.message().find("missing.yaml"), std::string::npos) << s;

  std::remove(good.c_str());
  std::remove(bad.c_str());
  rmdir(dir.c_str());
}

}  // namespace
}  // namespace ferry
