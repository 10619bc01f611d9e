#include "ferry/codec/extension_registry.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "ferry/codec/compressor.h"
#include "ferry/codec/serializer.h"

namespace ferry {
namespace {

struct Greeter {
  static constexpr std::string_view kExtensionKind = "test-greeter";
  virtual ~Greeter() = default;
  virtual std::string Greet() const = 0;
};
struct Hello : Greeter {
  std::string Greet() const override { return "hello"; }
};

TEST(ExtensionRegistryTest, BuiltinsAreRegisteredByName) {
  auto& registry = ExtensionRegistry::Instance();
  auto serializers = registry.Names<codec::Serializer>();
  EXPECT_NE(std::find(serializers.begin(), serializers.end(), "protobuf"), serializers.end());
  EXPECT_NE(std::find(serializers.begin(), serializers.end(), "json"), serializers.end());
  EXPECT_NE(registry.Create<codec::Compressor>("zstd"), nullptr);
  EXPECT_EQ(registry.Create<codec::Compressor>("lz5"), nullptr);
}

TEST(ExtensionRegistryTest, LookupByWireIdAndName) {
  ASSERT_NE(codec::FindSerializer(codec::serializer_id::kJson), nullptr);
  EXPECT_EQ(codec::FindSerializer(codec::serializer_id::kJson)->name(), "json");
  EXPECT_EQ(codec::FindSerializer("protobuf")->id(), codec::serializer_id::kProtobuf);
  EXPECT_EQ(codec::FindSerializer(uint8_t{200}), nullptr);
  EXPECT_EQ(codec::FindCompressor(codec::compression_id::kNone), nullptr);
  EXPECT_EQ(codec::FindCompressor("zstd")->id(), codec::compression_id::kZstd);
}

TEST(ExtensionRegistryTest, NewKindsRegisterAndDuplicatesAreRejected) {
  auto& registry = ExtensionRegistry::Instance();
  registry.Register<Greeter>("hello", [] { return std::make_shared<Hello>(); });
  auto greeter = registry.Create<Greeter>("hello");
  ASSERT_NE(greeter, nullptr);
  EXPECT_EQ(greeter->Greet(), "hello");
  EXPECT_THROW(registry.Register<Greeter>("hello", [] { return std::make_shared<Hello>(); }),
               std::invalid_argument);
  // Kinds are separate namespaces: a serializer named "hello" does not exist.
  EXPECT_EQ(registry.Create<codec::Serializer>("hello"), nullptr);
}

}  // namespace
}  // namespace ferry
