#include "channel_flags.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace ferry::bench {
namespace {

using ::testing::HasSubstr;

struct Parsed {
  FlagParser::Outcome outcome;
  std::string error;
  LoadOptions load;
  ChannelFlags channel;
};

Parsed Parse(std::vector<const char*> args) {
  Parsed p;
  FlagParser flags("ferry-bench test");
  AddLoadFlags(flags, &p.load, TargetFlag::kOptional);
  AddChannelFlags(flags, &p.channel, &p.load);
  p.outcome = flags.Parse(args, &p.error);
  return p;
}

TEST(ChannelFlagsTest, TargetModeTakesTheWireFlags) {
  const Parsed p = Parse({"--target", "127.0.0.1:7001", "--serializer", "json", "--compression",
                          "zstd", "--timeout-ms", "250"});
  ASSERT_EQ(p.outcome, FlagParser::Outcome::kOk) << p.error;
  EXPECT_EQ(p.load.target, "127.0.0.1:7001");
  EXPECT_EQ(p.channel.serializer, "json");
  EXPECT_EQ(p.channel.compression, "zstd");
  EXPECT_EQ(p.channel.timeout_ms, 250u);
  EXPECT_TRUE(p.channel.registry.empty());
}

TEST(ChannelFlagsTest, RegistryModeNeedsNoTarget) {
  const Parsed p = Parse({"--registry", "static://127.0.0.1:7001,127.0.0.1:7002", "--service",
                          "ferry.demo.Other", "--lb", "least_active"});
  ASSERT_EQ(p.outcome, FlagParser::Outcome::kOk) << p.error;
  EXPECT_EQ(p.channel.registry, "static://127.0.0.1:7001,127.0.0.1:7002");
  EXPECT_EQ(p.channel.service, "ferry.demo.Other");
  EXPECT_EQ(p.channel.balancer, "least_active");
  EXPECT_THAT(DescribeChannels(p.channel, "ferry.demo.EchoService"),
              HasSubstr("service=ferry.demo.Other lb=least_active"));
}

TEST(ChannelFlagsTest, ConsistentHashTakesTheHashField) {
  const Parsed p = Parse({"--registry", "static://127.0.0.1:7001,127.0.0.1:7002", "--lb",
                          "consistent_hash", "--hash-field", "user_id"});
  ASSERT_EQ(p.outcome, FlagParser::Outcome::kOk) << p.error;
  EXPECT_EQ(p.channel.hash_field, "user_id");
  EXPECT_THAT(DescribeChannels(p.channel, "ferry.seckill.SeckillService"),
              HasSubstr("lb=consistent_hash hash_field=user_id"));
}

TEST(ChannelFlagsTest, BadCombinationsNameTheFlags) {
  const std::vector<std::pair<std::vector<const char*>, std::string>> cases = {
      {{}, "exactly one"},
      {{"--target", "h:1", "--registry", "static://h:1"}, "exactly one"},
      {{"--target", "h:1", "--config", "c.yaml"}, "exactly one"},
      {{"--config", "c.yaml", "--serializer", "json"}, "they come from its client"},
      {{"--config", "c.yaml", "--timeout-ms", "5"}, "they come from its client"},
      {{"--target", "h:1", "--client", "echo"}, "--client: only with --config"},
      {{"--target", "h:1", "--lb", "random"}, "--lb: only with --registry"},
      {{"--target", "h:1", "--service", "x.Y"}, "--service: only with --registry"},
      {{"--registry", "static://h:1", "--hash-field", "user_id"},
       "--hash-field: only with --lb consistent_hash"},
      {{"--target", "no-port"}, "--target"},
      {{"--target", "h:1", "--timeout-ms", "0"}, "--timeout-ms"},
  };
  for (const auto& [args, expected] : cases) {
    const Parsed p = Parse(args);
    EXPECT_EQ(p.outcome, FlagParser::Outcome::kError) << expected;
    EXPECT_THAT(p.error, HasSubstr(expected));
  }
}

TEST(ChannelFlagsTest, OpensOneChannelPerConnection) {
  LoadOptions load;
  load.target = "127.0.0.1:7001";  // channels connect lazily: nothing is dialled here
  load.conns = 3;
  std::vector<std::shared_ptr<Channel>> channels;
  const Status opened = OpenChannels(ChannelFlags{}, "ferry.demo.EchoService", load, &channels);
  ASSERT_TRUE(opened.ok()) << opened;
  EXPECT_EQ(channels.size(), 3u);
  EXPECT_NE(channels[0], channels[1]);
}

TEST(ChannelFlagsTest, UnknownNamesFailToOpen) {
  LoadOptions load;
  load.target = "127.0.0.1:7001";
  std::vector<std::shared_ptr<Channel>> channels;
  ChannelFlags bad_serializer;
  bad_serializer.serializer = "xml";
  EXPECT_EQ(OpenChannels(bad_serializer, "s", load, &channels).code(),
            StatusCode::INVALID_ARGUMENT);
  ChannelFlags bad_compression;
  bad_compression.compression = "lz4";
  EXPECT_EQ(OpenChannels(bad_compression, "s", load, &channels).code(),
            StatusCode::INVALID_ARGUMENT);
  ChannelFlags bad_registry;
  bad_registry.registry = "nosuch://127.0.0.1:1";
  EXPECT_EQ(OpenChannels(bad_registry, "s", LoadOptions{}, &channels).code(),
            StatusCode::INVALID_ARGUMENT);
  ChannelFlags bad_balancer;
  bad_balancer.registry = "static://127.0.0.1:7001";
  bad_balancer.balancer = "fastest";
  EXPECT_EQ(OpenChannels(bad_balancer, "s", LoadOptions{}, &channels).code(),
            StatusCode::INVALID_ARGUMENT);
}

// Writes `yaml` to a file of its own for the test's life.
class ConfigFile {
 public:
  explicit ConfigFile(const std::string& yaml) {
    char name[] = "/tmp/ferry-bench-config-XXXXXX";
    const int fd = mkstemp(name);
    EXPECT_GE(fd, 0);
    path_ = name;
    EXPECT_EQ(write(fd, yaml.data(), yaml.size()), static_cast<ssize_t>(yaml.size()));
    close(fd);
  }
  ~ConfigFile() { unlink(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(ChannelFlagsTest, ConfigModeOpensTheNamedClientOfTheFile) {
  const ConfigFile file(
      "clients:\n"
      "  echo: {target: 127.0.0.1:7001, timeout_ms: 250}\n"
      "  other: {target: 127.0.0.1:7002}\n");
  const Parsed p = Parse({"--config", file.path().c_str(), "--client", "echo"});
  ASSERT_EQ(p.outcome, FlagParser::Outcome::kOk) << p.error;
  EXPECT_THAT(DescribeChannels(p.channel, "ferry.demo.EchoService"),
              HasSubstr("config=" + file.path() + " client=echo"));
  LoadOptions load;
  load.conns = 2;
  std::vector<std::shared_ptr<Channel>> channels;
  const Status opened = OpenChannels(p.channel, "ferry.demo.EchoService", load, &channels);
  ASSERT_TRUE(opened.ok()) << opened;
  EXPECT_EQ(channels.size(), 2u);

  ChannelFlags unnamed = p.channel;
  unnamed.client.clear();
  const Status ambiguous = OpenChannels(unnamed, "s", load, &channels);
  EXPECT_EQ(ambiguous.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(ambiguous.message(), HasSubstr("the file has 2 clients; name one"));
  EXPECT_THAT(ambiguous.message(), HasSubstr("echo, other"));

  ChannelFlags unknown = p.channel;
  unknown.client = "nope";
  EXPECT_THAT(OpenChannels(unknown, "s", load, &channels).message(),
              HasSubstr("no client 'nope' under clients:"));
}

TEST(ChannelFlagsTest, ConfigModeNamesTheFileOfABadConfig) {
  const ConfigFile file("clients:\n  echo: {target: 127.0.0.1:7001, timeout_ms: soon}\n");
  ChannelFlags channel;
  channel.config = file.path();
  std::vector<std::shared_ptr<Channel>> channels;
  const Status opened = OpenChannels(channel, "s", LoadOptions{}, &channels);
  EXPECT_EQ(opened.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(opened.message(), HasSubstr(file.path() + ":2: clients.echo.timeout_ms"));
}

}  // namespace
}  // namespace ferry::bench
