#include "like_command.h"

#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>

#include "ferry/bench/flag_parser.h"
#include "ferry/plugins/user_token.h"
#include "like_load.h"

namespace ferry::bench {
namespace {

constexpr std::string_view kProgram = "ferry-bench like";
constexpr std::string_view kLikeService = "ferry.like.LikeService";

// "ID:SECRET_FILE" into the key id and the file's secret; false with `*error` naming the flag.
bool ReadUserTokenKey(const std::string& flag, LikeBenchOptions* options, std::string* error) {
  const size_t colon = flag.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == flag.size()) {
    *error = "--user-token-key: expected ID:SECRET_FILE, got '" + flag + "'";
    return false;
  }
  const std::string file = flag.substr(colon + 1);
  std::ifstream in(file);
  std::string secret((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!secret.empty() && (secret.back() == '\n' || secret.back() == '\r')) secret.pop_back();
  if (secret.empty()) {
    *error = "--user-token-key: cannot read a secret from '" + file + "'";
    return false;
  }
  options->user_token_key_id = flag.substr(0, colon);
  options->user_token_secret = std::move(secret);
  if (plugins::MakeUserToken(options->user_token_key_id, options->user_token_secret, "probe", 0, 1)
          .empty()) {
    *error = "--user-token-key: '" + options->user_token_key_id +
             "' is not a key id (1-64 of A-Z a-z 0-9 . _ @ -)";
    return false;
  }
  return true;
}

int RunLike(int argc, const char* const* argv) {
  LikeBenchOptions options;
  LoadOptions& load = options.load;
  load.conns = 4;
  load.depth = 32;
  FlagParser flags(std::string{kProgram});
  flags.AddString("--target", "HOST:PORT", &load.target, "the like-server to load");
  flags.AddInteger<uint32_t>("--conns", "C", &load.conns, 1, 100'000, "connections (default 4)");
  flags.AddInteger<uint32_t>("--depth", "D", &load.depth, 1, 100'000,
                             "calls outstanding per connection (default 32)");
  flags.AddInteger<uint32_t>("--threads", "T", &load.threads, 1, 1'024,
                             "client IO threads per connection (default 1)");
  AddChannelFlags(flags, &options.channel, &load);
  flags.AddInteger<uint64_t>("--calls", "N", &options.calls, 1, 10'000'000'000,
                             "SetLike and GetCounts calls (default 100000)");
  flags.AddDouble("--get-ratio", "R", &options.get_ratio, 0, 1,
                  "share of GetCounts among the calls (default 0.5)");
  flags.AddDouble("--unlike-ratio", "R", &options.unlike_ratio, 0, 1,
                  "share of SetLike calls with liked=false (default 0.25)");
  flags.AddInteger<uint32_t>("--contents", "N", &options.contents, 1, 10'000'000,
                             "distinct contents (default 1000)");
  flags.AddInteger<uint32_t>("--users", "N", &options.users, 1, 100'000'000,
                             "distinct users, at least conns x depth (default 10000)");
  flags.AddDouble("--zipf", "S", &options.zipf_s, 0, 10,
                  "Zipf exponent of the content popularity; 0 is uniform (default 0.99)");
  flags.AddDouble("--hot-share", "H", &options.hot_share, 0, 1,
                  "share of the picks that name the hottest content, the rest by Zipf (default 0)");
  flags.AddInteger<uint32_t>("--batch", "N", &options.batch, 1, 100,
                             "content ids per GetCounts (default 10)");
  flags.AddInteger<uint32_t>("--retries", "N", &options.retries, 0, 100,
                             "resends of a failed SetLike with the same request id (default 2)");
  flags.AddInteger<int64_t>("--content-base", "ID", &options.content_base, 0,
                            std::numeric_limits<int64_t>::max() / 2,
                            "content ids are ID+1 ...; 0: from the clock, fresh per run (default)");
  flags.AddDouble("--duration-limit", "SECONDS", &options.duration_limit_s, 0.001, 86'400,
                  "no call starts after this (default 60)");
  flags.AddDouble("--settle-timeout", "SECONDS", &options.settle_timeout_s, 0, 86'400,
                  "how long the counts may take to equal the truth after the load (default 30)");
  flags.AddInteger<uint64_t>("--seed", "N", &options.seed, 0, std::numeric_limits<int64_t>::max(),
                             "random seed (default 1)");
  std::string user_token_key;
  flags.AddString("--user-token-key", "ID:SECRET_FILE", &user_token_key,
                  "sign a user token for each SetLike's user with key ID and the secret in "
                  "SECRET_FILE (the provider's user_token filter; default: no tokens)");
  flags.AddCheck([&options, &user_token_key](std::string* error) {
    return user_token_key.empty() || ReadUserTokenKey(user_token_key, &options, error);
  });
  flags.AddCheck([&options](std::string* error) {
    const LoadOptions& l = options.load;
    const uint64_t window = uint64_t{l.conns} * l.depth;
    if (window > kMaxCallsInFlight) {
      *error = "--conns x --depth: at most " + std::to_string(kMaxCallsInFlight) +
               " calls in flight, got " + std::to_string(window);
      return false;
    }
    // Each user belongs to one slot, so that a (content, user) never has two calls out.
    if (options.users < window) {
      *error = "--users: at least --conns x --depth = " + std::to_string(window) + ", got " +
               std::to_string(options.users);
      return false;
    }
    HostPort ignored;
    std::string why;
    if (!l.target.empty() && !ParseHostPort(l.target, &ignored, &why)) {
      *error = "--target: " + why;
      return false;
    }
    return true;
  });
  if (auto exit_code = flags.ParseOrExit(argc, argv)) return *exit_code;
  return RunLikeBench(options, std::cout, std::cerr);
}

}  // namespace

int RunLikeBench(const LikeBenchOptions& options, std::ostream& out, std::ostream& err,
                 LikeBenchOutcome* outcome) {
  std::vector<std::shared_ptr<Channel>> channels;
  if (Status opened = OpenChannels(options.channel, kLikeService, options.load, &channels);
      !opened.ok()) {
    err << kProgram << ": " << opened << "\n";
    return 1;
  }
  out << kProgram << ": target="
      << (options.load.target.empty() ? options.channel.registry : options.load.target)
      << " conns=" << options.load.conns << " depth=" << options.load.depth
      << " threads=" << options.load.threads << " calls=" << options.calls
      << " get-ratio=" << options.get_ratio << " zipf=" << options.zipf_s
      << " hot-share=" << options.hot_share << " users=" << options.users
      << " contents=" << options.contents << " " << DescribeChannels(options.channel, kLikeService)
      << std::endl;
  LikeLoad load(options, std::move(channels), out, err);
  if (Status opened = load.Open(); !opened.ok()) {
    err << kProgram << ": cannot reach the like service: " << opened << "\n";
    return 1;
  }
  load.Run();
  LikeBenchOutcome local;
  return load.Check(outcome ? outcome : &local) ? 0 : 1;
}

const Command kLikeCommand = {
    .name = "like",
    .summary =
        "a Zipf mix of SetLike and GetCounts on ferry.like.LikeService, then checks the "
        "counts",
    .run = RunLike,
};

}  // namespace ferry::bench
