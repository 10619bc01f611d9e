#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "service/paysim_config.h"

// The `service:` section: the shipped file reads cleanly, and mistakes name key and line.
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

}  // namespace
}  // namespace ferry::paysim::testing
