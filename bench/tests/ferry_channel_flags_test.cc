#include "channel_flags.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

TEST(ChannelFlagsTest, BadCombinationsNameTheFlags) {
  const std::vector<std::pair<std::vector<const char*>, std::string>> cases = {
      {{}, "exactly one"},
      {{"--target", "h:1", "--registry", "static://h:1"}, "exactly one"},
      {{"--target", "h:1", "--lb", "random"}, "--lb: only with --registry"},
      {{"--target", "h:1", "--service", "x.Y"}, "--service: only with --registry"},
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

}  // namespace
}  // namespace ferry::bench
