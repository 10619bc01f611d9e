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
  ZooKeeperUrl parsed{.connect_string = "stale", .digest = "stale"};
  ASSERT_TRUE(ParseZooKeeperUrl("zookeeper://127.0.0.1:2181,[::1]:2182", &parsed).ok());
  EXPECT_EQ(parsed.connect_string, "127.0.0.1:2181,[::1]:2182");
  EXPECT_EQ(parsed.digest, "");
  for (const char* url : {"zookeeper://", "static://127.0.0.1:2181", "zookeeper://h:1/chroot"}) {
    Status status = ParseZooKeeperUrl(url, &parsed);
    EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT) << url;
    EXPECT_NE(status.message().find(url), std::string::npos) << status;
  }
}

TEST(RegistryUrlTest, ZooKeeperUrlCarriesDigestCredentials) {
  ZooKeeperUrl parsed;
  ASSERT_TRUE(
      ParseZooKeeperUrl("zookeeper://ferry:s3cr@t/x@10.0.0.1:2181,10.0.0.2:2181", &parsed).ok());
  EXPECT_EQ(parsed.connect_string, "10.0.0.1:2181,10.0.0.2:2181");
  EXPECT_EQ(parsed.digest, "ferry:s3cr@t/x");
}

TEST(RegistryUrlTest, ErrorsNeverShowThePassword) {
  for (const char* url :
       {"zookeeper://ferry:s3cret@h", "zookeeper://ferry:s3cret@h:1/chroot",
        "zookeeper://ferry:s3cret@", "zookeeper://:s3cret@h:1", "zookeeper://ferrys3cret@h:1",
        "zookeeper://ferry:s3 cret@h:1", "zookeeper://ferry:@h:1"}) {
    ZooKeeperUrl parsed;
    Status status = ParseZooKeeperUrl(url, &parsed);
    EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT) << url;
    EXPECT_EQ(status.message().find("s3"), std::string::npos) << status;
    EXPECT_NE(status.message().find("zookeeper://<redacted>@"), std::string::npos) << status;
  }
  std::vector<std::string> addresses;
  Status status = ParseRegistryUrl("static://user:s3cret@h:1", "static", true, &addresses);
  EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.message(),
            "registry url 'static://<redacted>@h:1': credentials (user:password@) are not "
            "supported by static://");
}

}  // namespace
}  // namespace ferry::registry
