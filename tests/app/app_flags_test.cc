#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "app/app_flags.h"

namespace ferry::app {
namespace {

Status Parse(std::vector<const char*> args, AppFlags* flags) { return ParseAppFlags(args, flags); }

TEST(AppFlagsTest, ConfigAlone) {
  AppFlags flags;
  ASSERT_TRUE(Parse({"--config", "echo.yaml"}, &flags).ok());
  EXPECT_EQ(flags.config_path, "echo.yaml");
  EXPECT_FALSE(flags.port.has_value());
}

TEST(AppFlagsTest, SeparateAndJoinedValues) {
  AppFlags flags;
  ASSERT_TRUE(Parse({"--port=0", "--config", "a.yaml"}, &flags).ok());
  EXPECT_EQ(flags.port, 0);
  EXPECT_EQ(flags.config_path, "a.yaml");

  ASSERT_TRUE(Parse({"--config=b.yaml", "--port", "65535"}, &flags).ok());
  EXPECT_EQ(flags.port, 65535);
  EXPECT_EQ(flags.config_path, "b.yaml");
}

TEST(AppFlagsTest, RegistryOverridesTheConfig) {
  AppFlags flags;
  ASSERT_TRUE(
      Parse({"--config", "a.yaml", "--registry", "zookeeper://127.0.0.1:2181"}, &flags).ok());
  EXPECT_EQ(flags.registry_url, "zookeeper://127.0.0.1:2181");
  Status s = Parse({"--config", "a.yaml", "--registry", "127.0.0.1:2181"}, &flags);
  EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.message().find("--registry"), std::string::npos) << s;
}

TEST(AppFlagsTest, DevTakesNoValue) {
  AppFlags flags;
  ASSERT_TRUE(Parse({"--config", "a.yaml"}, &flags).ok());
  EXPECT_FALSE(flags.dev);
  ASSERT_TRUE(Parse({"--dev", "--config", "a.yaml"}, &flags).ok());
  EXPECT_TRUE(flags.dev);
  const Status valued = Parse({"--config", "a.yaml", "--dev=yes"}, &flags);
  EXPECT_EQ(valued.code(), StatusCode::INVALID_ARGUMENT) << valued;
}

TEST(AppFlagsTest, RejectsWhatItCannotUse) {
  const std::vector<std::vector<const char*>> bad = {
      {},                  // --config is required
      {"--port", "7001"},  // still required
      {"--config"},        // no value
      {"--config="},       // empty value
      {"--config", "a.yaml", "--port", "70000"},
      {"--config", "a.yaml", "--port", "-1"},
      {"--config", "a.yaml", "--port", "80x"},
      {"--config", "a.yaml", "--port="},
      {"--config", "a.yaml", "--verbose"},
      {"--config", "a.yaml", "stray"},
  };
  for (const auto& args : bad) {
    AppFlags flags;
    std::string joined;
    for (const char* arg : args) joined += std::string(arg) + " ";
    EXPECT_EQ(Parse(args, &flags).code(), StatusCode::INVALID_ARGUMENT) << joined;
  }
}

TEST(AppFlagsTest, OverrideListenPort) {
  std::string listen = "127.0.0.1:7001";
  ASSERT_TRUE(OverrideListenPort(7100, &listen).ok());
  EXPECT_EQ(listen, "127.0.0.1:7100");

  listen = "[::1]:7001";
  ASSERT_TRUE(OverrideListenPort(0, &listen).ok());
  EXPECT_EQ(listen, "[::1]:0");

  listen = "localhost";
  EXPECT_EQ(OverrideListenPort(1, &listen).code(), StatusCode::INVALID_ARGUMENT);
}

}  // namespace
}  // namespace ferry::app
