#include "ferry/codec/extension_registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

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

// A serializer that only has a wire id and a name, which is all the registry looks at.
class IdOnly final : public codec::Serializer {
 public:
  explicit IdOnly(uint8_t id) : id_(id) {}
  uint8_t id() const override { return id_; }
  std::string_view name() const override { return "id-only"; }
  bool Serialize(const google::protobuf::Message&, std::string*) const override { return false; }
  bool Parse(std::string_view, google::protobuf::Message*) const override { return false; }

 private:
  uint8_t id_;
};

void RegisterIdOnly(ExtensionRegistry& registry, const std::string& name, uint8_t id) {
  registry.Register<codec::Serializer>(name, [id] { return std::make_shared<IdOnly>(id); });
}

bool Has(const ExtensionRegistry& registry, const std::string& name) {
  const std::vector<std::string> names = registry.Names<codec::Serializer>();
  return std::find(names.begin(), names.end(), name) != names.end();
}

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

TEST(ExtensionRegistryTest, BuiltinWireIdsAreBelow128) {
  ExtensionRegistry builtins;
  RegisterIdOnly(builtins, "low", 127);
  try {
    RegisterIdOnly(builtins, "high", 128);
    ADD_FAILURE() << "a built-in took a plugin's wire id";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "serializer 'high' has wire id 128, but a built-in's must be 0-127 (128-255 are "
                 "for plugins)");
  }
  EXPECT_TRUE(Has(builtins, "low"));
  EXPECT_FALSE(Has(builtins, "high"));
}

TEST(ExtensionRegistryTest, PluginWireIdsAre128AndAboveAndEachIsTakenOnce) {
  ExtensionRegistry plugin(ExtensionRegistry::Origin::kPlugin);
  EXPECT_THROW(RegisterIdOnly(plugin, "low", 127), std::invalid_argument);
  RegisterIdOnly(plugin, "first", 200);
  EXPECT_THROW(RegisterIdOnly(plugin, "second", 200), std::invalid_argument);
  EXPECT_EQ(plugin.first_refusal(),
            "serializer 'low' has wire id 127, but a plugin's must be 128-255 (0-127 are Ferry's "
            "built-ins')");
}

TEST(ExtensionRegistryTest, AdoptingIsAllOrNothing) {
  ExtensionRegistry host;
  host.Register<Greeter>("taken", [] { return std::make_shared<Hello>(); });
  ExtensionRegistry plugin(ExtensionRegistry::Origin::kPlugin);
  RegisterIdOnly(plugin, "fresh", 130);
  plugin.Register<Greeter>("taken", [] { return std::make_shared<Hello>(); });
  EXPECT_THROW(host.Adopt(plugin), std::invalid_argument);
  EXPECT_FALSE(Has(host, "fresh")) << "nothing adopted";
  EXPECT_TRUE(Has(plugin, "fresh")) << "nothing lost";

  ExtensionRegistry other(ExtensionRegistry::Origin::kPlugin);
  RegisterIdOnly(other, "fresh", 130);
  host.Adopt(other);
  EXPECT_TRUE(Has(host, "fresh"));
  EXPECT_FALSE(Has(other, "fresh"));

  // A wire id the host already has is refused too, whatever the name.
  ExtensionRegistry same_id(ExtensionRegistry::Origin::kPlugin);
  RegisterIdOnly(same_id, "another", 130);
  try {
    host.Adopt(same_id);
    ADD_FAILURE() << "two serializers with wire id 130";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "serializer 'another' has wire id 130, already that of 'fresh'");
  }
  EXPECT_FALSE(Has(host, "another"));
}

}  // namespace
}  // namespace ferry
