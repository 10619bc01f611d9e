#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>

namespace ferry::app {

// `document` as YAML for people to read, with secrets replaced by "<redacted>":
// - everything under a key that names a secret (IsSecretKey), a whole list or mapping included;
// - every value shaped like a key, token or digest whatever its key: 20 or more characters of
//   letters, digits and `_-+=`, letters and digits mixed, without a run of nine lower-case
//   letters;
// - in any value, the credentials of a URL or DSN (RedactedUrl: "redis://<redacted>@host",
//   "<redacted>@tcp(db:3306)/shop") and the value of every `name=value` pair whose name names a
//   secret ("host=db password=<redacted>", "?token=<redacted>&x=1", "Pwd=<redacted>;").
std::string RedactedYaml(const YAML::Node& document);

// Whether a mapping key names a secret. Deny by default: a key is a secret's when any of its
// words names one, unless its last word says it holds something about a secret rather than the
// secret itself.
//
// Words: the key split at every character that is not a letter or digit, between a lower-case
// letter or digit and an upper-case one, and before the last capital of a run of capitals
// followed by a lower-case letter ("dbPassword", "db_password", "DB-PASSWORD", "Db.Password"
// and "DBPassword" are db, password), lower-cased. A word is also read without its trailing
// digits ("key2") and as a singular ("secrets", "keys", "hashes").
//
// A word names a secret when it is password, passwd, pwd, pass, passphrase, secret, token, key,
// apikey, credential, cred, authorization, bearer, jwt, cookie, salt, signature, sig, or a
// digest (hash, digest, hmac, sha, sha1, sha224, sha256, sha384, sha512, md5); or, written as
// one word, when it contains password, passwd, passphrase, secret, credential or apikey
// ("dbpassword", "clientsecret"), or ends in token, pwd or key ("accesstoken", "APIKEY"), except
// the ordinary words monkey, donkey, turkey, hockey, jockey, whiskey, lackey, hotkey and turnkey.
// "hash" after "consistent" is a load-balancing policy, not a digest.
//
// Not secrets, though they have such a word: keys whose first word is max, min or num (a bound:
// "max_keys_per_call"), and keys whose last word is one of id, kid, name, file, path, dir, env,
// url, uri, endpoint, header, param, field, prefix, ttl, ms, s, sec, seconds, timeout, interval,
// lifetime, expiry, length, len, size, bytes, bits, count, algorithm, alg, type, kind, format,
// version or enabled ("key_id", "token_ttl_ms", "key_file", "hash_key_field", "password_env") --
// except "secret_id", which is a credential (Vault's AppRole). A key id, file or URL so named is
// shown; a value of it shaped like a key is still hidden by RedactedYaml.
bool IsSecretKey(std::string_view key);

}  // namespace ferry::app
