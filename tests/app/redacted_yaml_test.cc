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

// Deny by default: a secret's word anywhere in the key, in any case style, joined to others or
// not, singular or plural, names a secret.
TEST(RedactedYamlTest, AnyWordNamingASecretMakesTheKeyASecret) {
  for (const char* key :
       {// camelCase, PascalCase, ALLCAPS, kebab-case, dotted
        "apiKey", "ApiKey", "APIKey", "API_KEY", "x-api-key", "accessToken", "AccessToken",
        "ACCESS_TOKEN", "dbPassword", "DbPassword", "DB_PASSWORD", "db.password", "PASSPHRASE",
        "passphrase", "keyPassphrase",
        // written as one word
        "apikey", "APIKEY", "accesstoken", "dbpassword", "DBPASSWORD", "clientsecret", "secretkey",
        "privatekey", "dbpwd",
        // a secret's word that is not the last
        "password_for_admin", "secret_of_the_day", "token-v2", "key2", "token_value",
        // plural, abbreviated, kin of a password
        "secrets", "passwords", "pwd", "db_pass", "creds", "credential", "authorization", "bearer",
        "jwt", "session_cookie",
        // digests and what makes them
        "admin_token_sha256", "password_hash", "passwordHashes", "sha1", "md5", "digest", "hmac",
        "signature", "webhook_sig", "salt",
        // an identifier that is a credential
        "secret_id", "vaultSecretId"}) {
    EXPECT_TRUE(IsSecretKey(key)) << key;
  }
}

// What is kept: words that merely contain a secret's letters, bounds on secrets, and keys whose
// last word says they hold something about a secret (its id, where it is, how long it lasts).
TEST(RedactedYamlTest, KeysAboutSecretsAreNotSecrets) {
  for (const char* key : {"monkey",
                          "Monkey",
                          "donkey_count",
                          "hockey",
                          "whiskey",
                          "keyspace",
                          "keystore",
                          "tokenizer",
                          "passive",
                          "bypass",
                          "compass",
                          "shaper",
                          "handshake_timeout_ms",
                          "consistent_hash",
                          "consistentHash",
                          "keyId",
                          "key_id",
                          "KeyID",
                          "token_ids",
                          "kid",
                          "key_file",
                          "password_file",
                          "secret-path",
                          "token_ttl_ms",
                          "token_ttl_s",
                          "hash_key_field",
                          "password_env",
                          "token_url",
                          "cookie_name",
                          "signature_header",
                          "key_length",
                          "max_keys",
                          "max_keys_per_call",
                          "min_password_length",
                          "num_tokens",
                          "hash_algorithm",
                          "user",
                          "name",
                          "address",
                          "session_timeout_ms"}) {
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

// A list or mapping under a secret's key goes whole; credentials in values go wherever they are:
// URLs, DSNs without a scheme, connection strings and query strings.
TEST(RedactedYamlTest, ListsUnderSecretKeysAndCredentialsInValuesAreHidden) {
  const YAML::Node document = YAML::Load(R"(
service:
  secrets: [s1, {nested: s2}]
  apiKey: {primary: s3, backup: s4}
  passwords:
    alice: s5
  mariadb_conn: "app:s6@tcp(db:3306)/shop"
  mysql: "root:s7@db.internal:3306/shop"
  note: "connect as app:s8@db or ask ops"
  pg: "host=db port=5432 user=app password=s9 dbname=shop"
  odbc: "Server=db;Uid=app;Pwd=s10;Database=shop"
  webhook: "https://hooks.example/x?token=s11&channel=ops"
  quoted: "host=db password='s 12' sslmode=require"
  ok_url: "https://hooks.example/x?channel=ops"
  contact: ops@example.com
  stream: shortlink:visits:dead
  keyId: k-2024
)");
  const std::string shown = RedactedYaml(document);
  for (const char* secret :
       {"s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s 12"}) {
    EXPECT_THAT(shown, Not(HasSubstr(secret))) << shown;
  }
  for (const char* kept :
       {"secrets: <redacted>", "apiKey: <redacted>", "passwords: <redacted>",
        "<redacted>@tcp(db:3306)/shop", "<redacted>@db.internal:3306/shop",
        "connect as <redacted>@db or ask ops",
        "host=db port=5432 user=app password=<redacted> "
        "dbname=shop",
        "Server=db;Uid=app;Pwd=<redacted>;Database=shop",
        "https://hooks.example/x?token=<redacted>&channel=ops", "sslmode=require",
        "ok_url: https://hooks.example/x?channel=ops", "contact: ops@example.com",
        "stream: shortlink:visits:dead", "keyId: k-2024"}) {
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
  // A DSN without a scheme: a word with a ':' before its last '@'.
  EXPECT_EQ(RedactedUrl("app:pw@tcp(db:3306)/shop"), "<redacted>@tcp(db:3306)/shop");
  EXPECT_EQ(RedactedUrl("app:p@ss@db/shop"), "<redacted>@db/shop");
  EXPECT_EQ(RedactedUrl("alice@example.com"), "alice@example.com");
  EXPECT_EQ(RedactedUrl("user@[::1]:22"), "user@[::1]:22");
  EXPECT_EQ(RedactedUrl("shortlink:visits:dead"), "shortlink:visits:dead");
}

}  // namespace
}  // namespace ferry::app
