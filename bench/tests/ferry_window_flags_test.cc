#include "window_flags.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "call_recorder.h"
#include "ferry/bench/result_line.h"
#include "in_process_provider.h"

namespace ferry::bench {
namespace {

using ::testing::HasSubstr;

// What a command with the window flags and --user-token-key (4 x 32 by default) made of `args`.
struct WindowCommand {
  explicit WindowCommand(std::vector<const char*> args) {
    load.conns = 4;
    load.depth = 32;
    FlagParser flags("ferry-bench test");
    AddWindowFlags(flags, &load, &channel, "test-server", "calls");
    AddUserTokenKeyFlag(flags, "each call", &key_id, &secret);
    outcome = flags.Parse(args, &error);
  }

  LoadOptions load;
  ChannelFlags channel;
  std::string key_id;
  std::string secret;
  FlagParser::Outcome outcome = FlagParser::Outcome::kError;
  std::string error;
};

TEST(WindowFlagsTest, TakesTheWindowAndDescribesIt) {
  const WindowCommand p({"--target", "127.0.0.1:7001", "--conns", "2", "--threads", "3"});
  ASSERT_EQ(p.outcome, FlagParser::Outcome::kOk) << p.error;
  EXPECT_EQ(p.load.conns, 2u);
  EXPECT_EQ(p.load.depth, 32u);  // the command's default
  EXPECT_EQ(DescribeWindow(p.load, p.channel), "target=127.0.0.1:7001 conns=2 depth=32 threads=3");
  EXPECT_TRUE(p.key_id.empty());
}

TEST(WindowFlagsTest, RefusesAWindowBeyondTheLimitAndAMalformedTarget) {
  const WindowCommand wide({"--target", "127.0.0.1:7001", "--conns", "1000", "--depth", "1001"});
  EXPECT_EQ(wide.outcome, FlagParser::Outcome::kError);
  EXPECT_THAT(wide.error, HasSubstr("--conns x --depth: at most 1000000 calls in flight"));
  const WindowCommand bad({"--target", "no-port"});
  EXPECT_EQ(bad.outcome, FlagParser::Outcome::kError);
  EXPECT_THAT(bad.error, HasSubstr("--target: "));
}

TEST(WindowFlagsTest, ReadsTheUserTokenKeyFromItsFile) {
  const ScratchDir dir("window-flags");
  const std::string file = dir.File("secret");
  std::ofstream(file) << "s3cret\n";
  const std::string flag = "scripts:" + file;
  const WindowCommand p({"--target", "127.0.0.1:7001", "--user-token-key", flag.c_str()});
  ASSERT_EQ(p.outcome, FlagParser::Outcome::kOk) << p.error;
  EXPECT_EQ(p.key_id, "scripts");
  EXPECT_EQ(p.secret, "s3cret");
}

TEST(WindowFlagsTest, NamesWhatIsWrongWithAUserTokenKey) {
  const WindowCommand no_colon({"--target", "127.0.0.1:7001", "--user-token-key", "scripts"});
  EXPECT_THAT(no_colon.error, HasSubstr("--user-token-key: expected ID:SECRET_FILE"));
  const WindowCommand no_file(
      {"--target", "127.0.0.1:7001", "--user-token-key", "scripts:/nonexistent/secret"});
  EXPECT_THAT(no_file.error, HasSubstr("cannot read a secret from '/nonexistent/secret'"));
  const ScratchDir dir("window-flags-id");
  const std::string flag = "bad key:" + dir.File("secret");
  std::ofstream(dir.File("secret")) << "s3cret";
  const WindowCommand bad_id({"--target", "127.0.0.1:7001", "--user-token-key", flag.c_str()});
  EXPECT_THAT(bad_id.error, HasSubstr("'bad key' is not a key id"));
}

TEST(ResultLineTest, WritesTheFieldsInOrderAsAStreamWould) {
  std::ostringstream out;
  out << ResultLine("RESULT").Add("qps", 1200).Add("ratio", 0.25).Add("check", "pass");
  EXPECT_EQ(out.str(), "RESULT qps=1200 ratio=0.25 check=pass");
}

TEST(ErrorsByStatusTest, NamesTheCodesSeenMostFrequentFirst) {
  std::array<uint64_t, kStatusCodes> errors{};
  errors[static_cast<size_t>(StatusCode::OK)] = 2;  // answers outside the contract
  errors[static_cast<size_t>(StatusCode::DEADLINE_EXCEEDED)] = 5;
  errors[CodeIndex(static_cast<StatusCode>(200))] = 1;  // beyond the known codes: UNKNOWN
  uint64_t total = 0;
  const auto by_status = ErrorsByStatus(errors, &total);
  EXPECT_EQ(total, 8u);
  ASSERT_EQ(by_status.size(), 3u);
  EXPECT_EQ(by_status[0], std::make_pair(std::string("DEADLINE_EXCEEDED"), uint64_t{5}));
  EXPECT_EQ(by_status[1], std::make_pair(std::string("BAD_ANSWER"), uint64_t{2}));
  EXPECT_EQ(by_status[2], std::make_pair(std::string("UNKNOWN"), uint64_t{1}));
}

}  // namespace
}  // namespace ferry::bench
