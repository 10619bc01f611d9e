#include "ferry/framework/plugin.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "ferry/codec/extension_registry.h"
#include "ferry/codec/serializer.h"
#include "ferry/framework/config.h"
#include "ferry/framework/filter.h"
#include "scratch_dir.h"

namespace ferry::plugins_test {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

void ExpectRefused(const std::string& path, const std::string& cause) {
  const Status status = LoadPlugin(path);
  EXPECT_EQ(status.code(), StatusCode::FAILED_PRECONDITION) << status;
  EXPECT_THAT(status.message(), AllOf(HasSubstr("'" + path + "'"), HasSubstr(cause)));
}

bool ServerFilterRegistered(const std::string& name) {
  const std::vector<std::string> names = ExtensionRegistry::Instance().Names<ServerFilter>();
  return std::find(names.begin(), names.end(), name) != names.end();
}

TEST(LoadPluginTest, RegistersTheAccessLogPluginsFilters) {
  if (ExtensionRegistry::Instance().Create<ServerFilter>("accesslog") != nullptr) {
    GTEST_SKIP() << "an earlier test of this process loaded the plugin already";
  }
  const Status status = LoadPlugin(ACCESSLOG_PLUGIN);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_NE(ExtensionRegistry::Instance().Create<ServerFilter>("accesslog"), nullptr);
  EXPECT_NE(ExtensionRegistry::Instance().Create<ClientFilter>("accesslog"), nullptr);
}

TEST(LoadPluginTest, LoadingTheSamePluginAgainIsANoOp) {
  ASSERT_TRUE(LoadPlugin(ACCESSLOG_PLUGIN).ok());
  // Registering again would throw "already registered"; the second load must not register.
  const std::filesystem::path path(ACCESSLOG_PLUGIN);
  const std::string same_file_other_spelling =
      (path.parent_path() / "." / path.filename()).string();
  const Status status = LoadPlugin(same_file_other_spelling);
  EXPECT_TRUE(status.ok()) << status;
}

TEST(LoadPluginTest, MissingFileIsRefused) {
  ScratchDir dir;
  ExpectRefused(dir.File("absent.so"), "No such file");
}

TEST(LoadPluginTest, DirectoryIsRefused) {
  ScratchDir dir;
  ExpectRefused(dir.File(""), "not a file");
}

TEST(LoadPluginTest, FileThatIsNotASharedObjectIsRefused) {
  ScratchDir dir;
  ExpectRefused(dir.Write("text.so", "plain text, not ELF\n"), "not a loadable shared object");
}

TEST(LoadPluginTest, SharedObjectWithoutEntryPointsIsRefused) {
  ExpectRefused(NO_ENTRY_POINT_PLUGIN, "missing symbol 'ferry_plugin_abi_version'");
}

TEST(LoadPluginTest, OtherAbiVersionIsRefusedBeforeRegistering) {
  // Its register function aborts, so reaching it would kill the test.
  ExpectRefused(FUTURE_ABI_PLUGIN,
                "built for ABI 999, this Ferry speaks " + std::to_string(FERRY_PLUGIN_ABI_VERSION));
}

TEST(LoadPluginTest, FailingRegisterIsReported) {
  ExpectRefused(FAILING_REGISTER_PLUGIN, "ferry_plugin_register failed with 3");
}

TEST(LoadPluginTest, ThrowingRegisterIsReported) {
  ExpectRefused(DUPLICATE_NAME_PLUGIN,
                "ferry_plugin_register threw: extension 'duplicate_test_filter' of kind "
                "'server_filter' is already registered");
  // Its first registration of the name had succeeded; it went with the rest.
  EXPECT_FALSE(ServerFilterRegistered("duplicate_test_filter"));
}

// Wire ids 0-127 are Ferry's: a plugin taking one could collide with a later built-in.
TEST(LoadPluginTest, APluginWireIdOfFerrysRangeIsRefusedAndNothingOfThePluginStays) {
  ExpectRefused(LOW_WIRE_ID_PLUGIN,
                "ferry_plugin_register threw: serializer 'low_wire_id_serializer' has wire id 7, "
                "but a plugin's must be 128-255");
  EXPECT_FALSE(ServerFilterRegistered("low_wire_id_filter"));
  EXPECT_EQ(codec::FindSerializer("low_wire_id_serializer"), nullptr);
}

TEST(LoadPluginTest, ARegistrationThePluginCaughtStillFailsTheLoad) {
  ExpectRefused(CAUGHT_REFUSAL_PLUGIN,
                "a registration failed: serializer 'caught_refusal_serializer' has wire id 7");
  EXPECT_FALSE(ServerFilterRegistered("caught_refusal_filter"));
}

TEST(LoadPluginTest, APluginSerializerIsFoundByItsWireId) {
  ASSERT_TRUE(LoadPlugin(PLUGIN_SERIALIZER_PLUGIN).ok());
  const codec::Serializer* serializer = codec::FindSerializer(uint8_t{200});
  ASSERT_NE(serializer, nullptr);
  EXPECT_EQ(serializer->name(), "plugin_test_serializer");
  EXPECT_EQ(codec::FindSerializer("plugin_test_serializer"), serializer);
}

TEST(LoadPluginTest, AWireIdAnotherPluginHasIsRefused) {
  ASSERT_TRUE(LoadPlugin(PLUGIN_SERIALIZER_PLUGIN).ok());
  ExpectRefused(SAME_WIRE_ID_PLUGIN,
                "serializer 'other_test_serializer' has wire id 200, already that of "
                "'plugin_test_serializer'");
  EXPECT_FALSE(ServerFilterRegistered("same_wire_id_filter"));
  EXPECT_EQ(codec::FindSerializer(uint8_t{200})->name(), "plugin_test_serializer");
}

TEST(LoadPluginTest, ConfigPluginsAreLoadedAtParseTime) {
  Config config;
  const Status status = ParseConfig(std::string("plugins: [") + ACCESSLOG_PLUGIN +
                                        "]\nserver:\n  filters:\n    - {name: accesslog}\n",
                                    "plugins.yaml", &config);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(config.plugins, std::vector<std::string>{ACCESSLOG_PLUGIN});
  ASSERT_EQ(config.server.filters.size(), 1u);
  EXPECT_EQ(config.server.filters[0].name, "accesslog");
  EXPECT_NE(ExtensionRegistry::Instance().Create<ServerFilter>("accesslog"), nullptr);
}

TEST(LoadPluginTest, ConfigNamingABadPluginFailsToParse) {
  Config config;
  const Status status =
      ParseConfig(std::string("plugins: [") + FUTURE_ABI_PLUGIN + "]\n", "plugins.yaml", &config);
  EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT) << status;
  EXPECT_THAT(status.message(), AllOf(HasSubstr("plugins.yaml"), HasSubstr("plugins[0]"),
                                      HasSubstr("built for ABI 999, this Ferry speaks " +
                                                std::to_string(FERRY_PLUGIN_ABI_VERSION))));
}

}  // namespace
}  // namespace ferry::plugins_test
