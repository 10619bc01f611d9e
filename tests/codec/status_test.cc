#include "ferry/codec/status.h"

#include <gtest/gtest.h>

#include <sstream>

namespace ferry {
namespace {

TEST(StatusTest, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.ToString(), "OK");
}

TEST(StatusTest, ToStringNamesCodeAndMessage) {
  Status s(StatusCode::DEADLINE_EXCEEDED, "call timed out after 100 ms");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.ToString(), "DEADLINE_EXCEEDED: call timed out after 100 ms");
  std::ostringstream os;
  os << s.code();
  EXPECT_EQ(os.str(), "DEADLINE_EXCEEDED");
}

TEST(StatusTest, EveryCodeHasAName) {
  for (uint16_t c = 0; c <= static_cast<uint16_t>(StatusCode::OVERLOADED); ++c) {
    EXPECT_NE(StatusCodeName(static_cast<StatusCode>(c)), "UNKNOWN_CODE") << c;
  }
  EXPECT_EQ(StatusCodeName(static_cast<StatusCode>(999)), "UNKNOWN_CODE");
}

}  // namespace
}  // namespace ferry
