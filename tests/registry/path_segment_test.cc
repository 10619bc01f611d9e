#include "ferry/registry/path_segment.h"

#include <gtest/gtest.h>

#include <string>

namespace ferry::registry {
namespace {

TEST(PathSegmentTest, AcceptsServiceNamesAndNamespaces) {
  EXPECT_TRUE(CheckPathSegment("service", "ferry.demo.EchoService").ok());
  EXPECT_TRUE(CheckPathSegment("namespace", "prod-eu_1").ok());
  EXPECT_TRUE(CheckPathSegment("idgen namespace", "seckill-orders").ok());
  EXPECT_TRUE(CheckPathSegment("service", "...").ok());  // only "." and ".." mean a directory
}

TEST(PathSegmentTest, RejectsWhatIsNotOneSegment) {
  const std::string names[] = {"",    ".",     "..",   "a/b",     "/",
                               "a b", "tab\t", "nl\n", "del\x7f", std::string("nul\0", 4)};
  for (const std::string& name : names) {
    EXPECT_EQ(CheckPathSegment("service", name).code(), StatusCode::INVALID_ARGUMENT) << name;
  }
}

TEST(PathSegmentTest, TheErrorNamesWhatAndTheName) {
  const Status status = CheckPathSegment("idgen namespace", "a/b");
  EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.message().find("idgen namespace"), std::string::npos) << status;
  EXPECT_NE(status.message().find("'a/b'"), std::string::npos) << status;
}

}  // namespace
}  // namespace ferry::registry
