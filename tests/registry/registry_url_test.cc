#include "ferry/registry/registry_url.h"

#include <gtest/gtest.h>

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

TEST(RegistryUrlTest, ZooKeeperUrlBecomesTheClientConnectString) {
  std::string hosts = "stale";
  ASSERT_TRUE(ParseZooKeeperUrl("zookeeper://127.0.0.1:2181,[::1]:2182", &hosts).ok());
  EXPECT_EQ(hosts, "127.0.0.1:2181,[::1]:2182");
  for (const char* url : {"zookeeper://", "static://127.0.0.1:2181", "zookeeper://h:1/chroot"}) {
    Status status = ParseZooKeeperUrl(url, &hosts);
    EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT) << url;
    EXPECT_NE(status.message().find(url), std::string::npos) << status;
  }
}

}  // namespace
}  // namespace ferry::registry
