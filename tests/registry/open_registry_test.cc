#include <gtest/gtest.h>

#include <memory>

#include "ferry/codec/extension_registry.h"
#include "ferry/framework/registry.h"

namespace ferry {
namespace {

TEST(OpenRegistryTest, BuiltinsAreRegisteredByScheme) {
  auto names = ExtensionRegistry::Instance().Names<Registry>();
  EXPECT_NE(std::find(names.begin(), names.end(), "static"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "zookeeper"), names.end());
}

TEST(OpenRegistryTest, MalformedUrlsAndUnknownSchemesAreInvalidArguments) {
  for (const char* url :
       {"", "127.0.0.1:2181", "zookeeper", "zookeeper:/127.0.0.1:2181", "://127.0.0.1:2181",
        "1zk://127.0.0.1:2181", "zookeeper://", "zookeeper://127.0.0.1", "zookeeper://127.0.0.1:0",
        "zookeeper://127.0.0.1:2181/chroot", "static://a:b"}) {
    RegistryOptions options;
    options.url = url;
    std::shared_ptr<Registry> registry;
    Status status = OpenRegistry(options, &registry);
    EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT) << url;
    EXPECT_EQ(registry, nullptr) << url;
  }
}

TEST(OpenRegistryTest, UnknownSchemeNamesTheKnownOnes) {
  RegistryOptions options;
  options.url = "etcd://127.0.0.1:2379";
  std::shared_ptr<Registry> registry;
  Status status = OpenRegistry(options, &registry);
  EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.message().find("'etcd'"), std::string::npos) << status;
  EXPECT_NE(status.message().find("static"), std::string::npos) << status;
  EXPECT_NE(status.message().find("zookeeper"), std::string::npos) << status;
}

TEST(OpenRegistryTest, BadNamespaceOrTimeoutsAreInvalidArguments) {
  RegistryOptions options;
  options.url = "zookeeper://127.0.0.1:2181";
  std::shared_ptr<Registry> registry;
  options.namespace_name = "a/b";
  EXPECT_EQ(OpenRegistry(options, &registry).code(), StatusCode::INVALID_ARGUMENT);
  options.namespace_name = "ok";
  options.session_timeout = std::chrono::milliseconds(0);
  EXPECT_EQ(OpenRegistry(options, &registry).code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(registry, nullptr);
}

}  // namespace
}  // namespace ferry
