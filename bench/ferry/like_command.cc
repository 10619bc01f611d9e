#include "like_command.h"

#include <iostream>
#include <limits>

#include "ferry/bench/flag_parser.h"
#include "like_load.h"
#include "window_flags.h"

namespace ferry::bench {
namespace {

constexpr std::string_view kProgram = "ferry-bench like";
constexpr std::string_view kLikeService = "ferry.like.LikeService";

int RunLike(int argc, const char* const* argv) {
  LikeBenchOptions options;
  LoadOptions& load = options.load;
  load.conns = 4;
  load.depth = 32;
  FlagParser flags(std::string{kProgram});
  AddWindowFlags(flags, &load, &options.channel, "like-server", "calls");
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
  AddUserTokenKeyFlag(flags, "each SetLike's user", &options.user_token_key_id,
                      &options.user_token_secret);
  AddOperatorKeyFlag(flags, "the Reconcile calls of the check", &options.operator_key_id,
                     &options.operator_secret);
  flags.AddCheck([&options](std::string* error) {
    // Each user belongs to one slot, so that a (content, user) never has two calls out.
    const uint64_t window = uint64_t{options.load.conns} * options.load.depth;
    if (options.users < window) {
      *error = "--users: at least --conns x --depth = " + std::to_string(window) + ", got " +
               std::to_string(options.users);
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
  out << kProgram << ": " << DescribeWindow(options.load, options.channel)
      << " calls=" << options.calls << " get-ratio=" << options.get_ratio
      << " zipf=" << options.zipf_s << " hot-share=" << options.hot_share
      << " users=" << options.users << " contents=" << options.contents << " "
      << DescribeChannels(options.channel, kLikeService) << std::endl;
  // The check's Reconcile calls are an operator's: on a channel of their own, signed.
  std::shared_ptr<Channel> operator_channel;
  if (Status opened =
          OpenOperatorChannel(options.channel, kLikeService, options.load, options.operator_key_id,
                              options.operator_secret, &operator_channel);
      !opened.ok()) {
    err << kProgram << ": " << opened << "\n";
    return 1;
  }
  LikeLoad load(options, std::move(channels), out, err, std::move(operator_channel));
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
