// ferry-user-token: mints a user token for the `user_token` server filter, for operators,
// scripts and tests (docs/plugins.md). A login service mints them in code with
// ferry::plugins::MakeUserToken.

#include <chrono>
#include <cstdint>
#include <iostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "ferry/framework/secret_file.h"
#include "ferry/plugins/user_token.h"

namespace {

constexpr std::string_view kUsage =
    "usage: ferry-user-token --key-id ID --secret-file FILE --user USER\n"
    "                        [--audience SERVICE] [--ttl SECONDS] [--token-id ID]\n"
    "                        [--role ROLE]...\n"
    "Prints a user token for USER, signed with key ID whose secret is FILE's content (one\n"
    "trailing newline ignored), good for SECONDS from now (default 3600; a server refuses one\n"
    "longer than its max_ttl_s). With --audience, a u2 token for that service only, with a\n"
    "random id (or --token-id) that revokes it, printed to stderr as 'token id: <id>';\n"
    "without, the older u1 token, which names neither. Each --role (with --audience) signs\n"
    "one more role into the token (u3), e.g. --role operator for an `authz` rule {role:\n"
    "operator}.\n";

int Fail(const std::string& why) {
  std::cerr << "ferry-user-token: " << why << "\n" << kUsage;
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string key_id;
  std::string secret_file;
  std::string user;
  std::string audience;
  std::string token_id;
  std::vector<std::string> roles;
  int64_t ttl_s = 3600;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::cout << kUsage;
      return 0;
    }
    if (i + 1 >= argc) return Fail(std::string(flag) + ": expected a value");
    const std::string value = argv[++i];
    if (flag == "--key-id") {
      key_id = value;
    } else if (flag == "--secret-file") {
      secret_file = value;
    } else if (flag == "--user") {
      user = value;
    } else if (flag == "--audience") {
      audience = value;
    } else if (flag == "--token-id") {
      token_id = value;
    } else if (flag == "--role") {
      roles.push_back(value);
    } else if (flag == "--ttl") {
      try {
        size_t used = 0;
        ttl_s = std::stoll(value, &used);
        if (used != value.size() || ttl_s <= 0) throw std::invalid_argument(value);
      } catch (const std::exception&) {
        return Fail("--ttl: expected seconds > 0, got '" + value + "'");
      }
    } else {
      return Fail("unknown flag " + std::string(flag));
    }
  }
  if (key_id.empty() || secret_file.empty() || user.empty()) {
    return Fail("--key-id, --secret-file and --user are required");
  }
  std::string secret;
  if (!ferry::config::ReadSecretFile(secret_file, &secret)) {
    return Fail("--secret-file: cannot open '" + secret_file + "'");
  }
  if (secret.empty()) return Fail("--secret-file: '" + secret_file + "' is empty");
  const int64_t now_s = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  if (!token_id.empty() && audience.empty()) return Fail("--token-id needs --audience");
  if (!roles.empty() && audience.empty()) return Fail("--role needs --audience");
  if (!audience.empty() && token_id.empty()) token_id = ferry::plugins::NewUserTokenId();
  const std::string token =
      audience.empty() ? ferry::plugins::MakeUserToken(key_id, secret, user, now_s, now_s + ttl_s)
                       : ferry::plugins::MakeUserToken(key_id, secret,
                                                       {.user = user,
                                                        .audience = audience,
                                                        .token_id = token_id,
                                                        .issued_unix_s = now_s,
                                                        .expires_unix_s = now_s + ttl_s,
                                                        .roles = {roles.begin(), roles.end()}});
  if (token.empty()) {
    return Fail(
        "cannot make a token: the key id, the token id and each role must be 1-64, the user and "
        "the audience 1-128 characters of A-Z a-z 0-9 . _ @ -, and there may be 16 roles");
  }
  std::cout << token << "\n";
  if (!token_id.empty()) std::cerr << "token id: " << token_id << "\n";
  return 0;
}
