#include "ferry/framework/logging.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <sstream>
#include <string>

namespace ferry {
namespace {

TEST(LoggingTest, SetsTheLevelOfTheFerryLogger) {
  ASSERT_TRUE(SetLogLevel("error").ok());
  auto logger = spdlog::get("ferry");
  ASSERT_NE(logger, nullptr);
  EXPECT_EQ(logger->level(), spdlog::level::err);
  ASSERT_TRUE(SetLogLevel("debug").ok());
  EXPECT_EQ(logger->level(), spdlog::level::debug);
  ASSERT_TRUE(SetLogLevel("info").ok());
}

TEST(LoggingTest, RejectsUnknownLevels) {
  ASSERT_TRUE(SetLogLevel("warn").ok());
  Status s = SetLogLevel("loud");
  EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.message().find("'loud'"), std::string::npos) << s;
  EXPECT_EQ(spdlog::get("ferry")->level(), spdlog::level::warn);  // unchanged
  ASSERT_TRUE(SetLogLevel("info").ok());
}

TEST(LoggingTest, FollowsTheLoggerTheApplicationRegistersLater) {
  Logger().info("a first line, on Ferry's own logger");
  const std::shared_ptr<spdlog::logger> own = spdlog::get("ferry");
  ASSERT_NE(own, nullptr);
  EXPECT_EQ(&Logger(), own.get());

  std::ostringstream lines;
  auto application = std::make_shared<spdlog::logger>(
      "ferry", std::make_shared<spdlog::sinks::ostream_sink_mt>(lines));
  spdlog::drop("ferry");
  spdlog::register_logger(application);
  Logger().warn("to the application's logger");
  EXPECT_EQ(&Logger(), application.get());
  EXPECT_NE(lines.str().find("to the application's logger"), std::string::npos) << lines.str();

  // Dropped from the registry: the last logger goes on, and Ferry registers none of its own.
  spdlog::drop("ferry");
  Logger().warn("after the drop");
  EXPECT_EQ(spdlog::get("ferry"), nullptr);
  EXPECT_NE(lines.str().find("after the drop"), std::string::npos) << lines.str();

  spdlog::register_logger(own);
  EXPECT_EQ(&Logger(), own.get());
}

// What a peer chose never makes a log line two, nor a field two: one call is one line.
TEST(LogEscapedTest, ControlCharactersQuotesAndWhatIsNotUtf8AreEscaped) {
  EXPECT_EQ(LogEscaped("ferry.demo.EchoService/Echo"), "ferry.demo.EchoService/Echo");
  EXPECT_EQ(LogEscaped("a\nb\rc\td"), "a\\nb\\rc\\td");
  EXPECT_EQ(LogEscaped("say \"hi\" \\ bye"), "say \\\"hi\\\" \\\\ bye");
  EXPECT_EQ(LogEscaped(std::string("nul") + '\0' +
                       "bell\x07"
                       "del\x7f"),
            "nul\\x00bell\\x07del\\x7f");
  // UTF-8 is kept but for what some viewers take for a line's end: NEL, U+2028, U+2029.
  EXPECT_EQ(LogEscaped("caf\xc3\xa9 \xe4\xb8\xad"), "caf\xc3\xa9 \xe4\xb8\xad");
  EXPECT_EQ(LogEscaped("a\xc2\x85"
                       "b\xe2\x80\xa8"
                       "c\xe2\x80\xa9"),
            "a\\xc2\\x85b\\xe2\\x80\\xa8c\\xe2\\x80\\xa9");
  // Bytes that are no UTF-8: a stray continuation, a truncated sequence, an overlong '/', a
  // surrogate.
  EXPECT_EQ(LogEscaped("\x80|\xe4\xb8|\xc0\xaf|\xed\xa0\x80"),
            "\\x80|\\xe4\\xb8|\\xc0\\xaf|\\xed\\xa0\\x80");
  // A word keeps to its field: a space would start a forged one.
  EXPECT_EQ(LogEscaped("Echo status=OK", /*word=*/true), "Echo\\x20status=OK");
  EXPECT_EQ(LogEscaped("Echo status=OK"), "Echo status=OK");
  std::string line = "call=";
  AppendLogEscaped("x\n2026-01-01T00:00:00 server status=OK", &line, /*word=*/true);
  EXPECT_EQ(line, "call=x\\n2026-01-01T00:00:00\\x20server\\x20status=OK");
}

}  // namespace
}  // namespace ferry
