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

}  // namespace
}  // namespace ferry
