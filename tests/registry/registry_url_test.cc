#include "ferry/registry/registry_url.h"

#include <gtest/gtest.h>

#include "path_segment.h"

namespace ferry::registry {
namespace {

TEST(RegistryUrlTest, SplitsAddresses) {
  std::vector<std::string> addresses;
  ASSERT_TRUE(ParseRegistryUrl("zookeeper://10.0.0.1:2181,zk-2.example:2182,[fe80::1]:2183",
                               "zookeeper", false, &addresses)
                  .ok());
  EXPECT_EQ(addresses,
            (std::vector<std::string>{"10.0.0.1:2181", "zk-2.example:2182", "[fe80::1]:2183"}));
}

TEST(RegistryUrlTest, EmptyListOnlyWhereAllowed) {
  std::vector<std::string> addresses{"stale:1"};
  EXPECT_TRUE(ParseRegistryUrl("static://", "static", true, &addresses).ok());
  EXPECT_TRUE(addresses.empty());
  EXPECT_EQ(ParseRegistryUrl("zookeeper://", "zookeeper", false, &addresses).code(),
            StatusCode::INVALID_ARGUMENT);
}

TEST(RegistryUrlTest, RejectsWhatIsNotAnAddressList) {
  for (const char* url :
       {"zookeeper:/h:1", "static://h:1", "zookeeper://h", "zookeeper://h:0", "zookeeper://h:65536",
        "zookeeper://h:12x", "zookeeper://h:1,", "zookeeper://h:1,,h:2", "zookeeper://h:1/chroot",
        "zookeeper://:1", "zookeeper://fe80::1:2181", "zookeeper://h 1:2"}) {
    std::vector<std::string> addresses;
    Status status = ParseRegistryUrl(url, "zookeeper", false, &addresses);
    EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT) << url;
    EXPECT_NE(status.message().find(url), std::string::npos) << status;
  }
}

TEST(PathSegmentTest, AcceptsServiceNamesAndRejectsPathTricks) {
  EXPECT_TRUE(CheckPathSegment("service", "ferry.demo.EchoService").ok());
  EXPECT_TRUE(CheckPathSegment("namespace", "prod-eu_1").ok());
  for (const char* name : {"", ".", "..", "a/b", "a b", "tab\t", "nl\n"}) {
    EXPECT_EQ(CheckPathSegment("service", name).code(), StatusCode::INVALID_ARGUMENT) << name;
  }
}

}  // namespace
}  // namespace ferry::registry
