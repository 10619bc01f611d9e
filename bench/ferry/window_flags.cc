#include "window_flags.h"

#include "ferry/framework/secret_file.h"

#include <iterator>
#include <memory>

#include "ferry/plugins/user_token.h"

namespace ferry::bench {
namespace {

// "ID:SECRET_FILE" into the key id and the file's secret; false with `*error` naming the flag.
// ID:SECRET_FILE of flag `name`.
bool ReadKeyFlag(std::string_view name, const std::string& flag, std::string* key_id,
                 std::string* secret, std::string* error) {
  const size_t colon = flag.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == flag.size()) {
    *error = std::string(name) + ": expected ID:SECRET_FILE, got '" + flag + "'";
    return false;
  }
  const std::string file = flag.substr(colon + 1);
  std::string read;
  if (!config::ReadSecretFile(file, &read) || read.empty()) {
    *error = std::string(name) + ": cannot read a secret from '" + file + "'";
    return false;
  }
  *key_id = flag.substr(0, colon);
  *secret = std::move(read);
  // Both filters take key ids of the same words.
  if (plugins::MakeUserToken(*key_id, *secret, "probe", 0, 1).empty()) {
    *error =
        std::string(name) + ": '" + *key_id + "' is not a key id (1-64 of A-Z a-z 0-9 . _ @ -)";
    return false;
  }
  return true;
}

}  // namespace

void AddWindowFlags(FlagParser& flags, LoadOptions* load, ChannelFlags* channel,
                    std::string_view server, std::string_view calls) {
  flags.AddString("--target", "HOST:PORT", &load->target,
                  "the " + std::string(server) + " to load");
  flags.AddInteger<uint32_t>("--conns", "C", &load->conns, 1, 100'000,
                             "connections (default " + std::to_string(load->conns) + ")");
  flags.AddInteger<uint32_t>("--depth", "D", &load->depth, 1, 100'000,
                             std::string(calls) + " outstanding per connection (default " +
                                 std::to_string(load->depth) + ")");
  flags.AddInteger<uint32_t>(
      "--threads", "T", &load->threads, 1, 1'024,
      "client IO threads per connection (default " + std::to_string(load->threads) + ")");
  AddChannelFlags(flags, channel, load);
  flags.AddCheck([load](std::string* error) { return CheckLoadShape(*load, error); });
}

void AddKeyFlag(FlagParser& flags, std::string name, std::string help, std::string* key_id,
                std::string* secret) {
  auto flag = std::make_shared<std::string>();
  flags.AddString(name, "ID:SECRET_FILE", flag.get(), std::move(help));
  flags.AddCheck([flag, name, key_id, secret](std::string* error) {
    return flag->empty() || ReadKeyFlag(name, *flag, key_id, secret, error);
  });
}

void AddUserTokenKeyFlag(FlagParser& flags, std::string_view signs, std::string* key_id,
                         std::string* secret) {
  AddKeyFlag(flags, "--user-token-key",
             "sign a user token for " + std::string(signs) +
                 " with key ID and the secret in SECRET_FILE (the provider's user_token filter; "
                 "default: no tokens)",
             key_id, secret);
}

void AddOperatorKeyFlag(FlagParser& flags, std::string_view signs, std::string* key_id,
                        std::string* secret) {
  AddKeyFlag(flags, "--operator-key",
             "sign " + std::string(signs) +
                 " with the auth key ID and the secret in SECRET_FILE (the provider's auth "
                 "filter; default: unsigned)",
             key_id, secret);
}

std::string DescribeWindow(const LoadOptions& load, const ChannelFlags& channel) {
  return "target=" + (load.target.empty() ? channel.registry : load.target) +
         " conns=" + std::to_string(load.conns) + " depth=" + std::to_string(load.depth) +
         " threads=" + std::to_string(load.threads);
}

}  // namespace ferry::bench
