// The configuration the status page shows: every secret replaced, everything else as written.
#include "app/redacted_yaml.h"

#include "ferry/framework/logging.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ferry::app {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(RedactedYamlTest, SecretKeysAndUrlCredentialsAreReplaced) {
  const YAML::Node document = YAML::Load(R"(
server: {listen: 127.0.0.1:7001}
service:
  mariadb: {user: root, password: pw1, database: shop}
  redis_url: "redis://:pw2@127.0.0.1:6379/0"
  api_key: pw3
  Auth-Token: pw4
  filters:
    - name: auth
      config: {secret: pw5, tokens: [pw6, pw7]}
    - {name: auth, keys: [{id: k1, secret: pw8}]}
  monkey: banana
  hash_key_field: user_id
)");
  const std::string shown = RedactedYaml(document);
  for (const char* secret : {"pw1", "pw2", "pw3", "pw4", "pw5", "pw6", "pw7", "pw8"}) {
    EXPECT_THAT(shown, Not(HasSubstr(secret))) << shown;
  }
  EXPECT_THAT(shown, HasSubstr("password: <redacted>"));
  EXPECT_THAT(shown, HasSubstr("redis://<redacted>@127.0.0.1:6379/0"));
  EXPECT_THAT(shown, HasSubstr("user: root"));
  EXPECT_THAT(shown, HasSubstr("database: shop"));
  EXPECT_THAT(shown, HasSubstr("listen: 127.0.0.1:7001"));
  // Words that merely contain a secret's name are not secrets.
  EXPECT_THAT(shown, HasSubstr("monkey: banana"));
  EXPECT_THAT(shown, HasSubstr("hash_key_field: user_id"));
}

TEST(RedactedYamlTest, KeysNamingSecrets) {
  for (const char* key : {"password", "db_password", "secret", "client-secret", "token", "tokens",
                          "api_key", "key", "PASSWORD", "credentials"}) {
    EXPECT_TRUE(IsSecretKey(key)) << key;
  }
  for (const char* key : {"monkey", "keyspace", "tokenizer", "hash_key_field", "passive"}) {
    EXPECT_FALSE(IsSecretKey(key)) << key;
  }
}

TEST(RedactedYamlTest, AnEmptyDocumentShowsNothing) { EXPECT_EQ(RedactedYaml(YAML::Node()), ""); }

TEST(RedactedUrlTest, HidesTheUserInformationOfAUrlAndNothingElse) {
  EXPECT_EQ(RedactedUrl("zookeeper://ferry:pw@10.0.0.1:2181,10.0.0.2:2181"),
            "zookeeper://<redacted>@10.0.0.1:2181,10.0.0.2:2181");
  // A password may hold '@' and '/': all of it goes.
  EXPECT_EQ(RedactedUrl("zookeeper://ferry:p@w/x@h:1"), "zookeeper://<redacted>@h:1");
  EXPECT_EQ(RedactedUrl("zookeeper://h:1,h:2"), "zookeeper://h:1,h:2");
  EXPECT_EQ(RedactedUrl("static://"), "static://");
  EXPECT_EQ(RedactedUrl("not a url @ all"), "not a url @ all");
}

}  // namespace
}  // namespace ferry::app
