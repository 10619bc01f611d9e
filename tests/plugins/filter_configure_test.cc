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
}

TEST(FilterConfigureTest, AuthNeedsASecret) {
  EXPECT_TRUE(Configure<ClientFilter>("auth", "{name: auth, secret: s3cr3t}").ok());
  EXPECT_TRUE(
      Configure<ServerFilter>("auth", "{name: auth, secret: s3cr3t, max_skew_ms: 5000}").ok());
  ExpectInvalid(Configure<ClientFilter>("auth", "{name: auth}"), "secret: must be set");
  ExpectInvalid(Configure<ServerFilter>("auth", "{name: auth, secret: ''}"), "secret: must be set");
}

TEST(FilterConfigureTest, AuthRejectsBadSkewAndUnknownKeys) {
  ExpectInvalid(Configure<ServerFilter>("auth", "{name: auth, secret: s, max_skew_ms: -1}"),
                "filters[0].max_skew_ms: expected an integer from 0 to 86400000, got '-1'");
  ExpectInvalid(Configure<ServerFilter>("auth", "{name: auth, secret: s, max_skew: 10}"),
                "max_skew: unknown key");
  ExpectInvalid(Configure<ClientFilter>("auth", "{name: auth, secret: s, max_skew_ms: 10}"),
                "max_skew_ms: unknown key");
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
                "set at least one of per_method, per_caller, methods or per_field");
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
