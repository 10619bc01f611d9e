// Configure() of the bundled filters: what each accepts, and what each error says.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "ferry/codec/extension_registry.h"
#include "ferry/framework/channel.h"
#include "ferry/framework/config.h"
#include "ferry/framework/filter.h"
#include "ferry/framework/server.h"

namespace ferry::plugins_test {
namespace {

using ::testing::HasSubstr;

// Configures a filter as a channel or server does: its entry read through the config reader.
template <class Filter>
Status Configure(const std::string& name, const std::string& yaml) {
  std::shared_ptr<Filter> filter = ExtensionRegistry::Instance().Create<Filter>(name);
  if (filter == nullptr) return Status(StatusCode::NOT_FOUND, name + " is not registered");
  config::ConfigErrors errors("t.yaml");
  config::ConfigReader reader(YAML::Load(yaml), "filters[0]", &errors);
  std::string read_name;
  reader.String("name", &read_name);
  filter->Configure(reader);
  reader.RejectUnknownKeys();
  return errors.first();
}

void ExpectInvalid(const Status& status, const std::string& message) {
  EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT) << status;
  EXPECT_THAT(status.message(), HasSubstr(message));
}

TEST(FilterConfigureTest, BundledFiltersAreRegisteredOnTheSidesTheyServe) {
  const ExtensionRegistry& registry = ExtensionRegistry::Instance();
  EXPECT_NE(registry.Create<ClientFilter>("auth"), nullptr);
  EXPECT_NE(registry.Create<ServerFilter>("auth"), nullptr);
  EXPECT_NE(registry.Create<ServerFilter>("ratelimit"), nullptr);
  EXPECT_EQ(registry.Create<ClientFilter>("ratelimit"), nullptr);
  EXPECT_NE(registry.Create<ServerFilter>("authz"), nullptr);
  EXPECT_EQ(registry.Create<ClientFilter>("authz"), nullptr);
}

TEST(FilterConfigureTest, AuthNeedsASecret) {
  EXPECT_TRUE(Configure<ClientFilter>("auth", "{name: auth, secret: s3cr3t}").ok());
  EXPECT_TRUE(
      Configure<ServerFilter>("auth", "{name: auth, secret: s3cr3t, max_skew_ms: 5000}").ok());
  ExpectInvalid(Configure<ClientFilter>("auth", "{name: auth}"), "secret: must be set");
  ExpectInvalid(Configure<ServerFilter>("auth", "{name: auth, secret: ''}"), "secret: must be set");
}

TEST(FilterConfigureTest, AuthRejectsBadSkewAndUnknownKeys) {
  ExpectInvalid(Configure<ServerFilter>("auth", "{name: auth, secret: s, replay_cache_entries: 0}"),
                "replay_cache_entries: expected an integer from 1 to 4294967296, got '0'");
  ExpectInvalid(Configure<ServerFilter>("auth", "{name: auth, secret: s, max_skew_ms: -1}"),
                "filters[0].max_skew_ms: expected an integer from 0 to 86400000, got '-1'");
  ExpectInvalid(Configure<ServerFilter>("auth", "{name: auth, secret: s, max_skew: 10}"),
                "max_skew: unknown key");
  ExpectInvalid(Configure<ClientFilter>("auth", "{name: auth, secret: s, max_skew_ms: 10}"),
                "max_skew_ms: unknown key");
}

TEST(FilterConfigureTest, AuthAcceptsEveryDocumentedKey) {
  EXPECT_TRUE(Configure<ServerFilter>("auth",
                                      "{name: auth, keys: [{id: k1, secret: a}, {id: k2, secret: "
                                      "b}], max_skew_ms: 1000, replay_cache_entries: 10, "
                                      "accept_replayable_tokens: false}")
                  .ok());
  EXPECT_TRUE(Configure<ClientFilter>("auth",
                                      "{name: auth, keys: [{id: k1, secret: a}, {id: k2, secret: "
                                      "b}], signing_key: k2, caller: billing@eu-1}")
                  .ok());
}

TEST(FilterConfigureTest, AuthServerTakesV3TokensOptionalMethodsAndCallersOfKeys) {
  EXPECT_TRUE(Configure<ServerFilter>("auth",
                                      "{name: auth, keys: [{id: k1, secret: a, callers: [ops-*, "
                                      "billing]}], v3_tokens: accept, optional: [\"s.S/Get\"]}")
                  .ok());
  ExpectInvalid(Configure<ServerFilter>("auth", "{name: auth, secret: s, v3_tokens: maybe}"),
                "filters[0].v3_tokens: expected accept or refuse, got 'maybe'");
  ExpectInvalid(
      Configure<ServerFilter>("auth", "{name: auth, keys: [{id: k1, secret: a, callers: []}]}"),
      "filters[0].keys[0].callers: must list at least one caller");
  ExpectInvalid(Configure<ServerFilter>(
                    "auth", "{name: auth, keys: [{id: k1, secret: a, callers: ['ops team']}]}"),
                "filters[0].keys[0].callers: expected patterns of 1-64 characters");
  // Which callers a key may sign is the server's to say.
  ExpectInvalid(
      Configure<ClientFilter>("auth", "{name: auth, keys: [{id: k1, secret: a, callers: [x]}]}"),
      "filters[0].keys[0].callers: unknown key");
  ExpectInvalid(Configure<ServerFilter>("user_token",
                                        "{name: user_token, secret: s, optional: "
                                        "[Get]}"),
                "filters[0].optional: expected <full service name>/<method>, got 'Get'");
}

TEST(FilterConfigureTest, AuthServerExemptsOnlyFullMethodNames) {
  EXPECT_TRUE(Configure<ServerFilter>("auth",
                                      "{name: auth, secret: s, exempt: [\"s.S/Get\", "
                                      "\"s.S/List\"]}")
                  .ok());
  ExpectInvalid(Configure<ServerFilter>("auth", "{name: auth, secret: s, exempt: [s.S/Get, Get]}"),
                "filters[0].exempt: expected <full service name>/<method>, got 'Get'");
  ExpectInvalid(Configure<ServerFilter>("auth", "{name: auth, secret: s, exempt: s.S/Get}"),
                "filters[0].exempt: expected a list");
  // The client signs every call; exempting is the server's decision.
  ExpectInvalid(Configure<ClientFilter>("auth", "{name: auth, secret: s, exempt: [s.S/Get]}"),
                "exempt: unknown key");
}

// Server and client read keys through the one reader: each mistake names its place.
ServerOptions ServerOf(const std::string& yaml, Status* parsed) {
  Config config;
  *parsed = ParseConfig(yaml, "app.yaml", &config);
  return config.server;
}

TEST(FilterConfigureTest, AuthKeyMistakesNameTheKeyAndLine) {
  Status parsed;
  Server duplicate(
      ServerOf("server:\n"
               "  filters:\n"
               "    - name: auth\n"
               "      keys:\n"
               "        - {id: k1, secret: a}\n"
               "        - {id: k1, secret: b}\n",
               &parsed));
  ASSERT_TRUE(parsed.ok()) << parsed;
  ExpectInvalid(duplicate.Start(),
                "app.yaml:6: server.filters[0].keys[1].id: key id 'k1' is listed twice");
  Server empty(
      ServerOf("server:\n"
               "  filters:\n"
               "    - name: auth\n"
               "      keys:\n"
               "        - {id: k1, secret: a}\n"
               "        - id: k2\n"
               "          secret: ''\n",
               &parsed));
  ExpectInvalid(empty.Start(),
                "app.yaml:7: server.filters[0].keys[1].secret: key 'k2' must have a non-empty "
                "shared secret");
  ExpectInvalid(Configure<ServerFilter>("auth", "{name: auth, keys: [{id: 'k 1', secret: a}]}"),
                "keys[0].id: must be 1-64 characters of A-Z a-z 0-9 . _ @ -, got 'k 1'");
  ExpectInvalid(Configure<ServerFilter>("auth", "{name: auth, keys: []}"),
                "keys: expected a non-empty list");
  ExpectInvalid(Configure<ServerFilter>("auth",
                                        "{name: auth, secret: s, keys: [{id: k, secret: "
                                        "s}]}"),
                "keys: set either keys or secret");
  ExpectInvalid(Configure<ServerFilter>("auth", "{name: auth, keys: [{id: k, secret: s, x: 1}]}"),
                "keys[0].x: unknown key");
}

TEST(FilterConfigureTest, AuthClientSignsWithAKeyItHolds) {
  ExpectInvalid(Configure<ClientFilter>("auth",
                                        "{name: auth, keys: [{id: k1, secret: a}, {id: k2, "
                                        "secret: b}], signing_key: k3}"),
                "filters[0].signing_key: 'k3' is not among the keys ('k1', 'k2')");
  ExpectInvalid(Configure<ClientFilter>(
                    "auth", "{name: auth, keys: [{id: k1, secret: a}, {id: k2, secret: b}]}"),
                "signing_key: must name the key to sign with, one of 'k1', 'k2'");
  ExpectInvalid(Configure<ClientFilter>("auth", "{name: auth, secret: s, caller: 'a:b'}"),
                "caller: must be at most 64 characters");
  ExpectInvalid(Configure<ServerFilter>("auth", "{name: auth, secret: s, caller: x}"),
                "caller: unknown key");
}

TEST(FilterConfigureTest, RatelimitAcceptsEveryDocumentedKey) {
  const Status status = Configure<ServerFilter>(
      "ratelimit",
      "{name: ratelimit, per_method: {rate: 1000, burst: 100}, per_caller: {rate: 100, burst: "
      "20}, methods: {\"ferry.demo.EchoService/Echo\": {rate: 0.5, burst: 1}}, max_callers: "
      "1000}");
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_TRUE(
      Configure<ServerFilter>("ratelimit", "{name: ratelimit, per_caller: {rate: 5}}").ok());
}

TEST(FilterConfigureTest, RatelimitNeedsSomeLimit) {
  ExpectInvalid(Configure<ServerFilter>("ratelimit", "{name: ratelimit}"),
                "set at least one of per_method, per_caller, per_user, per_peer, methods or "
                "per_field");
}

TEST(FilterConfigureTest, RatelimitNamesTheBadKey) {
  ExpectInvalid(Configure<ServerFilter>("ratelimit", "{name: ratelimit, per_method: {burst: 3}}"),
                "per_method.rate: must be set");
  ExpectInvalid(Configure<ServerFilter>("ratelimit", "{name: ratelimit, per_caller: {rate: 0}}"),
                "per_caller.rate: expected a number above 0, got '0'");
  ExpectInvalid(
      Configure<ServerFilter>("ratelimit", "{name: ratelimit, per_caller: {rate: 1, burst: 0}}"),
      "per_caller.burst: expected an integer from 1 to");
  ExpectInvalid(
      Configure<ServerFilter>("ratelimit", "{name: ratelimit, per_caller: {rate: 1, brust: 2}}"),
      "per_caller.brust: unknown key");
  ExpectInvalid(
      Configure<ServerFilter>("ratelimit", "{name: ratelimit, methods: {Echo: {rate: 1}}}"),
      "methods.Echo: expected <full service name>/<method>");
  ExpectInvalid(Configure<ServerFilter>("ratelimit", "{name: ratelimit, per_method: 5}"),
                "per_method: expected a mapping, got '5'");
  ExpectInvalid(Configure<ServerFilter>("ratelimit",
                                        "{name: ratelimit, per_field: {Purchase: {user_id: "
                                        "{rate: 1}}}}"),
                "per_field.Purchase: expected <full service name>/<method>");
  ExpectInvalid(Configure<ServerFilter>("ratelimit",
                                        "{name: ratelimit, per_field: {\"s.S/Purchase\": "
                                        "{user_id: {burst: 1}}}}"),
                "per_field.s.S/Purchase.user_id.rate: must be set");
}

TEST(FilterConfigureTest, RatelimitMethodPerPeerNeedsNoSharedRate) {
  EXPECT_TRUE(Configure<ServerFilter>("ratelimit",
                                      "{name: ratelimit, methods: {\"s.S/Get\": {per_peer: "
                                      "{rate: 5, burst: 10}}}}")
                  .ok());
  EXPECT_TRUE(Configure<ServerFilter>("ratelimit",
                                      "{name: ratelimit, methods: {\"s.S/Get\": {rate: 100, "
                                      "burst: 50, per_peer: {rate: 5}}}, max_callers: 10}")
                  .ok());
}

TEST(FilterConfigureTest, RatelimitMethodPerPeerMistakesNameTheKey) {
  ExpectInvalid(
      Configure<ServerFilter>("ratelimit", "{name: ratelimit, methods: {\"s.S/Get\": {}}}"),
      "methods.s.S/Get.rate: must be set (the method's shared bucket), or per_peer: {rate, burst}");
  ExpectInvalid(Configure<ServerFilter>("ratelimit",
                                        "{name: ratelimit, methods: {\"s.S/Get\": {burst: 3, "
                                        "per_peer: {rate: 5}}}}"),
                "methods.s.S/Get.rate: must be set with burst");
  ExpectInvalid(Configure<ServerFilter>("ratelimit",
                                        "{name: ratelimit, methods: {\"s.S/Get\": {per_peer: "
                                        "{burst: 3}}}}"),
                "methods.s.S/Get.per_peer.rate: must be set");
  ExpectInvalid(Configure<ServerFilter>("ratelimit",
                                        "{name: ratelimit, methods: {\"s.S/Get\": {per_peer: "
                                        "{rate: 0}}}}"),
                "methods.s.S/Get.per_peer.rate: expected a number above 0, got '0'");
  ExpectInvalid(Configure<ServerFilter>("ratelimit",
                                        "{name: ratelimit, methods: {\"s.S/Get\": {per_peer: "
                                        "{rate: 1, brust: 2}}}}"),
                "methods.s.S/Get.per_peer.brust: unknown key");
  ExpectInvalid(Configure<ServerFilter>("ratelimit",
                                        "{name: ratelimit, methods: {\"s.S/Get\": {rate: 1, "
                                        "per_pear: {rate: 1}}}}"),
                "methods.s.S/Get.per_pear: unknown key");
  ExpectInvalid(Configure<ServerFilter>("ratelimit",
                                        "{name: ratelimit, methods: {\"s.S/Get\": {per_peer: 5}}}"),
                "methods.s.S/Get.per_peer: expected a mapping, got '5'");
}

TEST(FilterConfigureTest, AFilterMistakeNamesTheFileLineAndFullKey) {
  Config config;
  ASSERT_TRUE(ParseConfig("clients:\n"
                          "  echo:\n"
                          "    target: 127.0.0.1:1\n"
                          "    filters:\n"
                          "      - {name: auth, secrit: x}\n",
                          "app.yaml", &config)
                  .ok());
  std::shared_ptr<Channel> channel;
  const Status status = NewChannel(config.clients.at("echo").cluster.client, &channel);
  ExpectInvalid(status, "app.yaml:5: clients.echo.filters[0].secret: must be set");

  ServerOptions options;
  ASSERT_TRUE(
      ParseConfig("server:\n  filters:\n    - name: ratelimit\n      per_method: {rate: -1}\n",
                  "app.yaml", &config)
          .ok());
  Server server(config.server);
  ExpectInvalid(server.Start(),
                "app.yaml:4: server.filters[0].per_method.rate: expected a number above 0");
}

}  // namespace
}  // namespace ferry::plugins_test
