// The shipped configs carry sample secrets everyone can read: a provider refuses to start with
// one unless the file or the command line says it is a demo.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ferry/framework/app.h"
#include "ferry/framework/config.h"
#include "ferry/framework/server.h"

namespace ferry::plugins_test {
namespace {

using ::testing::HasSubstr;

const std::string kSeckill = FERRY_SOURCE_DIR "/demo-services/seckill/config/seckill-server.yaml";

// An App run as from a shell: `args` after the program's name.
Status StartApp(std::vector<std::string> args) {
  args.insert(args.begin(), "seckill-server");
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  App app("seckill-server", static_cast<int>(args.size()), argv.data());
  Status status = app.Start();
  app.Stop();
  return status;
}

std::string FileText(const std::string& path) {
  std::ifstream file(path);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

TEST(SampleSecretsTest, AShippedConfigRefusesToStartNamingTheKeyAndLine) {
  const Status status = StartApp({"--config", kSeckill, "--port", "0"});
  EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT) << status;
  EXPECT_THAT(status.message(),
              HasSubstr("seckill-server.yaml:22: server.filters[0].keys[0].secret: is a sample "
                        "secret of the shipped configs ('change-me-seckill-operators')"));
  EXPECT_THAT(status.message(), HasSubstr("allow_sample_secrets: true"));
}

// The file's secrets are accepted; what stops this App then is that it serves no seckill service,
// whose methods the file's authz rules name (checked once every filter, secrets and all, is
// configured).
void ExpectSecretsAcceptedAndTheServiceMissed(const Status& status) {
  EXPECT_THAT(status.message(), ::testing::Not(HasSubstr("sample secret"))) << status;
  EXPECT_THAT(status.message(),
              HasSubstr("server.filters[2].services[0]: no service 'ferry.seckill.SeckillService' "
                        "on this server"));
}

TEST(SampleSecretsTest, DevStartsAShippedConfig) {
  ExpectSecretsAcceptedAndTheServiceMissed(
      StartApp({"--config", kSeckill, "--port", "0", "--dev"}));
}

TEST(SampleSecretsTest, AllowSampleSecretsInTheFileStartsIt) {
  Config config;
  ASSERT_TRUE(
      ParseConfig("allow_sample_secrets: true\n" + FileText(kSeckill), "s.yaml", &config).ok());
  config.server.listen = "127.0.0.1:0";
  App app("seckill-server", std::move(config));
  ExpectSecretsAcceptedAndTheServiceMissed(app.Start());
  app.Stop();
}

TEST(SampleSecretsTest, EveryShippedConfigWithASecretRefusesIt) {
  // seckill-server-redis.yaml names a ZooKeeper registry, which this test does not link.
  for (const std::string name :
       {"like/config/like-server.yaml", "like/config/like-server-redis.yaml"}) {
    Config config;
    const Status loaded = LoadConfigFile(FERRY_SOURCE_DIR "/demo-services/" + name, &config);
    ASSERT_TRUE(loaded.ok()) << loaded;
    config.server.listen = "127.0.0.1:0";
    Server server(config.server);
    const Status status = server.Start();
    server.Stop();
    EXPECT_THAT(status.message(), HasSubstr("is a sample secret")) << name;
  }
}

TEST(SampleSecretsTest, ASecretOfOnesOwnIsNoSample) {
  Config config;
  ASSERT_TRUE(ParseConfig("server:\n  listen: 127.0.0.1:0\n  filters:\n    - {name: auth, keys: "
                          "[{id: k1, secret: not-change-me}]}\n",
                          "own.yaml", &config)
                  .ok());
  Server server(config.server);
  EXPECT_TRUE(server.Start().ok());
  server.Stop();
}

}  // namespace
}  // namespace ferry::plugins_test
