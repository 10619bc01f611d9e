#include "ferry/bench/flag_parser.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ferry/bench/load_options.h"
#include "ferry/bench/server_options.h"

namespace ferry::bench {
namespace {

using ::testing::HasSubstr;

struct LoadParse {
  FlagParser::Outcome outcome;
  std::string error;
  LoadOptions options;
};

LoadParse ParseLoad(std::vector<const char*> args) {
  LoadParse result;
  FlagParser flags("test-bench");
  AddLoadFlags(flags, &result.options);
  result.outcome = flags.Parse(args, &result.error);
  return result;
}

TEST(LoadFlagsTest, ParsesEveryFlagInBothForms) {
  const LoadParse r = ParseLoad({"--target", "127.0.0.1:7001", "--conns=8", "--depth", "64",
                                 "--size", "4096", "--duration=2.5", "--threads", "3",
                                 "--slow-ratio", "0.01", "--slow-ms=7", "--warmup", "1"});
  ASSERT_EQ(r.outcome, FlagParser::Outcome::kOk) << r.error;
  EXPECT_EQ(r.options.target, "127.0.0.1:7001");
  EXPECT_EQ(r.options.conns, 8u);
  EXPECT_EQ(r.options.depth, 64u);
  EXPECT_EQ(r.options.size, 4096u);
  EXPECT_DOUBLE_EQ(r.options.duration_seconds, 2.5);
  EXPECT_EQ(r.options.threads, 3u);
  EXPECT_DOUBLE_EQ(r.options.slow_ratio, 0.01);
  EXPECT_EQ(r.options.slow_ms, 7u);
  EXPECT_DOUBLE_EQ(r.options.warmup_seconds, 1);
}

TEST(LoadFlagsTest, AbsentFlagsKeepDefaults) {
  const LoadParse r = ParseLoad({"--target", "localhost:1"});
  ASSERT_EQ(r.outcome, FlagParser::Outcome::kOk) << r.error;
  EXPECT_EQ(r.options.conns, LoadOptions{}.conns);
  EXPECT_EQ(r.options.depth, LoadOptions{}.depth);
  EXPECT_EQ(r.options.size, LoadOptions{}.size);
  EXPECT_DOUBLE_EQ(r.options.slow_ratio, 0);
}

TEST(LoadFlagsTest, BadValuesNameTheFlag) {
  const std::vector<std::pair<std::vector<const char*>, std::string>> cases = {
      {{"--target", "h:1", "--conns", "0"}, "--conns"},
      {{"--target", "h:1", "--conns", "12x"}, "--conns"},
      {{"--target", "h:1", "--depth", "-3"}, "--depth"},
      {{"--target", "h:1", "--size", "99999999999"}, "--size"},
      {{"--target", "h:1", "--duration", "0"}, "--duration"},
      {{"--target", "h:1", "--duration", "soon"}, "--duration"},
      {{"--target", "h:1", "--threads", ""}, "--threads"},
      {{"--target", "h:1", "--slow-ratio", "1.5"}, "--slow-ratio"},
      {{"--target", "h:1", "--slow-ms", "0"}, "--slow-ms"},
      {{"--target", "h:1", "--warmup", "nan"}, "--warmup"},
      {{"--target", "no-port"}, "--target"},
      {{"--target", "h:65536"}, "--target"},
      {{"--target", "::1:80"}, "--target"},
      {{"--conns", "2"}, "--target"},
      {{"--target", "h:1", "--depth"}, "--depth"},
      {{"--target", "h:1", "--conns", "10000", "--depth", "10000"}, "--conns x --depth"},
      {{"--target", "h:1", "--bogus", "1"}, "--bogus"},
      {{"--target", "h:1", "stray"}, "stray"},
  };
  for (const auto& [args, flag] : cases) {
    const LoadParse r = ParseLoad(args);
    EXPECT_EQ(r.outcome, FlagParser::Outcome::kError) << flag;
    EXPECT_THAT(r.error, HasSubstr(flag));
  }
}

TEST(LoadFlagsTest, HelpIsNotAnError) {
  EXPECT_EQ(ParseLoad({"--conns", "2", "--help"}).outcome, FlagParser::Outcome::kHelp);
  EXPECT_EQ(ParseLoad({"-h"}).outcome, FlagParser::Outcome::kHelp);
}

TEST(LoadFlagsTest, UsageListsEveryFlag) {
  LoadOptions options;
  FlagParser flags("test-bench");
  AddLoadFlags(flags, &options);
  const std::string usage = flags.Usage();
  for (const char* name : {"--target", "--conns", "--depth", "--size", "--duration", "--threads",
                           "--slow-ratio", "--slow-ms", "--warmup"}) {
    EXPECT_THAT(usage, HasSubstr(name));
  }
}

TEST(LoadFlagsTest, ClientsCanAddFlagsOfTheirOwn) {
  LoadOptions options;
  std::string serializer = "protobuf";
  FlagParser flags("ferry-bench echo");
  AddLoadFlags(flags, &options);
  flags.AddString("--serializer", "NAME", &serializer, "body serializer");
  std::string error;
  const std::vector<const char*> args = {"--serializer", "json", "--target", "h:2"};
  ASSERT_EQ(flags.Parse(args, &error), FlagParser::Outcome::kOk) << error;
  EXPECT_EQ(serializer, "json");
}

TEST(HostPortTest, AcceptsNamesAddressesAndBracketedIpv6) {
  HostPort hp;
  std::string error;
  ASSERT_TRUE(ParseHostPort("localhost:7001", &hp, &error)) << error;
  EXPECT_EQ(hp.host, "localhost");
  EXPECT_EQ(hp.port, 7001);
  ASSERT_TRUE(ParseHostPort("[::1]:80", &hp, &error)) << error;
  EXPECT_EQ(hp.host, "::1");
  EXPECT_EQ(hp.port, 80);
  EXPECT_FALSE(ParseHostPort(":80", &hp, &error));
  EXPECT_FALSE(ParseHostPort("h:0", &hp, &error));
}

TEST(ServerFlagsTest, ParsesPortAndThreads) {
  ServerOptions options;
  FlagParser flags("test-server");
  AddServerFlags(flags, &options);
  std::string error;
  std::vector<const char*> args = {"--port", "7100", "--threads=2"};
  ASSERT_EQ(flags.Parse(args, &error), FlagParser::Outcome::kOk) << error;
  EXPECT_EQ(options.port, 7100);
  EXPECT_EQ(options.threads, 2u);
  args = {"--port", "70000"};
  EXPECT_EQ(flags.Parse(args, &error), FlagParser::Outcome::kError);
  EXPECT_THAT(error, HasSubstr("--port"));
}

}  // namespace
}  // namespace ferry::bench
