// The config sections that name extensions: registry, provider, filters, cluster keys, plugins.
#include <gtest/gtest.h>

#include "ferry/framework/config.h"

namespace ferry {
namespace {

Status Parse(const std::string& yaml, Config* out = nullptr) {
  Config scratch;
  return ParseConfig(yaml, "t.yaml", out != nullptr ? out : &scratch);
}

void ExpectError(const std::string& yaml, const std::string& fragment) {
  Status s = Parse(yaml);
  EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT) << yaml;
  EXPECT_NE(s.message().find(fragment), std::string::npos) << s << "\nfor:\n" << yaml;
}

TEST(ClusterConfigTest, ReadsRegistryProviderAndClusterKeys) {
  Config c;
  Status s = Parse(R"(
registry:
  url: zookeeper://127.0.0.1:2181
  namespace: staging
  session_timeout_ms: 4000
  empty_protection: false
  startup: failfast
provider:
  weight: 50
  zone: z1
  advertise: 10.0.0.1:7001
clients:
  echo:
    service: ferry.demo.EchoService
    timeout_ms: 250
    loadbalance:
      name: consistent_hash
      warmup_ms: 5000
      consistent_hash: {virtual_nodes: 40, field: payload}
    fault_tolerance:
      mode: failover
      max_attempts: 3
      retry_budget: {ratio: 0.2, min_per_second: 5}
    methods:
      Echo:
        fault_tolerance: {mode: backup, backup_delay_ms: 3}
    outlier: {consecutive_failures: 3, base_ejection_ms: 500, max_ejection_ms: 8000}
)",
                   &c);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(c.registry.url, "zookeeper://127.0.0.1:2181");
  EXPECT_EQ(c.registry.namespace_name, "staging");
  EXPECT_EQ(c.registry.session_timeout.count(), 4000);
  EXPECT_FALSE(c.registry.empty_protection);
  EXPECT_EQ(c.registry.startup, RegistryOptions::Startup::kFailFast);
  EXPECT_EQ(Config{}.registry.startup, RegistryOptions::Startup::kWait) << "the default";
  EXPECT_EQ(c.provider.weight, 50u);
  EXPECT_EQ(c.provider.zone, "z1");
  EXPECT_EQ(c.provider.advertise, "10.0.0.1:7001");
  const ClusterOptions& cluster = c.clients.at("echo").cluster;
  EXPECT_EQ(cluster.service, "ferry.demo.EchoService");
  EXPECT_EQ(cluster.client.default_timeout.count(), 250);
  EXPECT_EQ(cluster.loadbalance.name, "consistent_hash");
  EXPECT_EQ(cluster.loadbalance.warmup.count(), 5000);
  EXPECT_EQ(cluster.loadbalance.virtual_nodes, 40u);
  EXPECT_EQ(cluster.loadbalance.hash_field, "payload");
  EXPECT_EQ(cluster.fault_tolerance.mode, "failover");
  EXPECT_EQ(cluster.fault_tolerance.max_attempts, 3u);
  EXPECT_DOUBLE_EQ(cluster.fault_tolerance.retry_budget_ratio, 0.2);
  ASSERT_EQ(cluster.method_fault_tolerance.count("Echo"), 1u);
  const FaultToleranceOptions& echo = cluster.method_fault_tolerance.at("Echo");
  EXPECT_EQ(echo.mode, "backup");
  EXPECT_EQ(echo.backup_delay.count(), 3);
  EXPECT_EQ(echo.max_attempts, 3u) << "a method inherits the service's other keys";
  EXPECT_EQ(cluster.outlier.consecutive_failures, 3u);
  EXPECT_EQ(cluster.outlier.max_ejection.count(), 8000);
}

TEST(ClusterConfigTest, NamesTheKeyOfEveryMistake) {
  ExpectError("registry:\n  url: etcd://x:1\n", "registry.url: unknown registry 'etcd://x:1'");
  ExpectError("registry:\n  url: 127.0.0.1:2181\n", "registry.url");
  ExpectError("registry:\n  empty_protection: maybe\n",
              "registry.empty_protection: expected true or false");
  ExpectError("registry:\n  startup: later\n",
              "t.yaml:2: registry.startup: unknown startup 'later' (expected wait or failfast)");
  ExpectError("registry:\n  url: \"zk://ferry:pw1@h:1\"\n",
              "registry.url: unknown registry 'zk://<redacted>@h:1'");
  ExpectError("provider:\n  weight: 0\n", "provider.weight");
  ExpectError("provider:\n  weight: 100001\n", "expected an integer from 1 to 100000");
  const std::string client = "clients:\n  e:\n    service: s.S\n";
  ExpectError(client + "    loadbalance: {name: fastest}\n",
              "t.yaml:4: clients.e.loadbalance.name: unknown load balancer 'fastest'");
  ExpectError(client + "    fault_tolerance: {mode: hope}\n", "clients.e.fault_tolerance.mode");
  ExpectError(client + "    fault_tolerance: {retry_budget: {ratio: 1.5}}\n",
              "clients.e.fault_tolerance.retry_budget.ratio: expected a number from 0 to 1");
  ExpectError(client + "    methods:\n      Echo: {fault_tolerence: {}}\n",
              "clients.e.methods.Echo.fault_tolerence: unknown key");
  ExpectError(client + "    outlier: {consecutive: 3}\n",
              "clients.e.outlier.consecutive: unknown key");
  ExpectError("server:\n  filters: [{name: nosuchfilter}]\n",
              "t.yaml:2: server.filters[0].name: unknown server filter 'nosuchfilter'");
  ExpectError(client + "    filters: [{secret: x}]\n",
              "clients.e.filters[0]: expected a mapping with a 'name' key");
  ExpectError("plugins: [/nonexistent/libnothing.so]\n", "plugins[0]");
  ExpectError("plugins: {a: b}\n", "plugins: expected a list");
}

TEST(ClusterConfigTest, FaultToleranceModeIsLeftToTheMethodUnlessGiven) {
  Config c;
  ASSERT_TRUE(Parse("clients:\n"
                    "  a: {service: s.S}\n"
                    "  b: {service: s.S, fault_tolerance: {mode: failfast},\n"
                    "      methods: {M: {fault_tolerance: {max_attempts: 3}}}}\n",
                    &c)
                  .ok());
  EXPECT_EQ(c.clients.at("a").cluster.fault_tolerance.mode, "");
  EXPECT_EQ(c.clients.at("a").cluster.fault_tolerance.max_attempts, 2u);
  EXPECT_EQ(c.clients.at("b").cluster.fault_tolerance.mode, "failfast");
  EXPECT_EQ(c.clients.at("b").cluster.method_fault_tolerance.at("M").mode, "failfast")
      << "a method inherits the service's mode";
}

}  // namespace
}  // namespace ferry
