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
  for (const char* key :
       {"password", "db_password", "secret", "client-secret", "token", "tokens", "api_key", "key",
        "PASSWORD", "credentials", "apiKey", "accessToken", "admin_token_sha256",
        "adminTokenSha256", "secrets", "keys", "password_hash", "hmacKey", "signing.salt"}) {
    EXPECT_TRUE(IsSecretKey(key)) << key;
  }
  for (const char* key : {"monkey", "keyspace", "tokenizer", "hash_key_field", "passive",
                          "token_ttl_ms", "key_file", "max_keys_per_call", "shaper"}) {
    EXPECT_FALSE(IsSecretKey(key)) << key;
  }
}

// Every way a service names a secret: camelCase, digests of secrets, lists of secrets, and values
// that look like keys under keys that do not say so. Durations, counts, names, addresses and
// paths next to them stay readable.
TEST(RedactedYamlTest, SecretsAreHiddenWhateverTheyAreCalled) {
  const YAML::Node document = YAML::Load(R"(
service:
  admin_token_sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
  adminTokenSha256: s1
  apiKey: s2
  accessToken: s3
  secrets: [s4, s5]
  webhook: {signing_salt: s6, Password-Hash: s7}
  users: {alice: slk_4f9a1c2e7b3d5a6f8e0c1b2a3d4e5f60718293a4b5c6d7e8}
  base64ish: QWxhZGRpbjpvcGVuIHNlc2FtZQ2x
  token_ttl_ms: 60000
  hash_key_field: user_id
  stream: shortlink:visits:dead
  path: /var/lib/ferry/seckill-orders-2024.db
  group: seckill-orders-writers
  listen: 127.0.0.1:7001
)");
  const std::string shown = RedactedYaml(document);
  for (const char* secret :
       {"9f86d081", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "slk_4f9a", "QWxhZGRp"}) {
    EXPECT_THAT(shown, Not(HasSubstr(secret))) << shown;
  }
  for (const char* kept :
       {"token_ttl_ms: 60000", "hash_key_field: user_id", "stream: shortlink:visits:dead",
        "path: /var/lib/ferry/seckill-orders-2024.db", "group: seckill-orders-writers",
        "listen: 127.0.0.1:7001"}) {
    EXPECT_THAT(shown, HasSubstr(kept)) << shown;
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
