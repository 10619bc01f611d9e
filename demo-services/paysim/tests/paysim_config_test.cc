#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "paysim_fixture.h"
#include "service/paysim_config.h"

// The `service:` section: the shipped file reads cleanly, and mistakes name key and line; the
// shipped file's filters guard the operators' methods.
namespace ferry::paysim::testing {
namespace {

Status Read(const YAML::Node& service, PaysimConfig* out, const std::string& file = "paysim.yaml") {
  config::ConfigErrors errors(file);
  config::ConfigReader reader(service, "service", &errors);
  ReadPaysimConfig(reader, out);
  reader.RejectUnknownKeys();
  return errors.first();
}

TEST(PaysimConfigTest, TheShippedConfigReads) {
  PaysimConfig config;
  Status s = Read(YAML::LoadFile(PAYSIM_CONFIG_DIR "/paysim.yaml")["service"], &config);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(config.merchants.count("seckill"), 1u);
  EXPECT_EQ(config.merchants["seckill"].channel, "sim");
  EXPECT_EQ(config.merchants["seckill"].notify_address, "127.0.0.1:7101");
  EXPECT_EQ(config.delivery.max_attempts, 12);
}

TEST(PaysimConfigTest, MistakesNameTheirKeyAndLine) {
  PaysimConfig config;
  Status s = Read(YAML::Load("merchants:\n"
                             "  shop:\n"
                             "    key: short\n"
                             "    notify_address: 127.0.0.1:1\n"),
                  &config);
  EXPECT_NE(s.message().find("paysim.yaml:3: service.merchants.shop.key"), std::string::npos) << s;
  config = PaysimConfig();
  s = Read(YAML::Load("merchants:\n"
                      "  shop:\n"
                      "    key: long-enough-key-0123456789\n"
                      "delivery:\n"
                      "  max_atempts: 3\n"),
           &config);
  EXPECT_NE(s.message().find("service.delivery.max_atempts"), std::string::npos) << s;
  config = PaysimConfig();
  s = Read(YAML::Load("merchants:\n"
                      "  shop:\n"
                      "    key: long-enough-key-0123456789\n"),
           &config);
  EXPECT_NE(s.message().find("notify_address"), std::string::npos) << s;
}

// The shipped configuration's filters: the operators' methods need a signed operator, the
// merchants' and the buyers' calls carry their own credentials and pass.
class PaysimShippedConfigTest : public PaysimTest {
 protected:
  void SetUp() override {
    filters_ = testsupport::ServerFiltersOf(PAYSIM_CONFIG_DIR "/paysim.yaml");
    PaysimTest::SetUp();
  }
  // A proxy whose calls `auth` signs with the shipped operators' key, as `caller_yaml` says.
  PaysimServiceProxy Operator(const std::string& caller_yaml) {
    ClientOptions options = testsupport::LoopbackClientOptions(std::chrono::seconds(5));
    options.filters = {FilterSpec::FromYaml(
        "auth",
        "{keys: [{id: paysim-ops-1, secret: change-me-paysim-operators}]" + caller_yaml + "}")};
    options.filters[0].allow_sample_secrets = true;  // the shipped config's operator key
    return PaysimServiceProxy(testsupport::LoopbackChannel(paysim_.port(), options));
  }
};

TEST_F(PaysimShippedConfigTest, OperatorsMethodsNeedASignedOperatorAndMerchantsCallsPass) {
  auto created = Create(2401, 300);
  ASSERT_TRUE(created.ok()) << created.status();
  ListNotificationsRequest list;
  list.set_order_no(2401);
  const Status anonymous = proxy().ListNotifications(list).status();
  EXPECT_EQ(anonymous.code(), StatusCode::UNAUTHENTICATED) << anonymous;
  EXPECT_EQ(proxy().SetFaults(SetFaultsRequest()).status().code(), StatusCode::UNAUTHENTICATED);
  const auto listed = Operator(", caller: ops").ListNotifications(list);
  EXPECT_TRUE(listed.ok()) << listed.status();
  // Signed, but as nobody: authz's rules ask for a caller.
  const Status nobody = Operator("").ListNotifications(list).status();
  EXPECT_EQ(nobody.code(), StatusCode::PERMISSION_DENIED) << nobody;
}

}  // namespace
}  // namespace ferry::paysim::testing
