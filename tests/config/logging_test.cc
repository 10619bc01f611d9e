#include "ferry/framework/logging.h"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

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

}  // namespace
}  // namespace ferry
