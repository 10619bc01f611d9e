#include "echo_command.h"

#include <iostream>
#include <memory>
#include <utility>
#include <vector>

#include "channel_flags.h"
#include "echo_transport.h"
#include "ferry/bench/flag_parser.h"
#include "ferry/bench/load_driver.h"
#include "ferry/bench/load_options.h"
#include "ferry/bench/load_report.h"

namespace ferry::bench {
namespace {

constexpr std::string_view kProgram = "ferry-bench echo";
constexpr std::string_view kEchoService = "ferry.demo.EchoService";

int RunEcho(int argc, const char* const* argv) {
  LoadOptions options;
  ChannelFlags channel;
  FlagParser flags(std::string{kProgram});
  AddLoadFlags(flags, &options, TargetFlag::kOptional);
  AddChannelFlags(flags, &channel, &options);
  if (auto exit_code = flags.ParseOrExit(argc, argv)) return *exit_code;

  std::vector<std::shared_ptr<Channel>> channels;
  if (Status opened = OpenChannels(channel, kEchoService, options, &channels); !opened.ok()) {
    std::cerr << kProgram << ": " << opened << "\n";
    return 1;
  }
  LoadDriver driver(options);
  EchoTransport transport(driver, options, std::move(channels));
  if (Status probed = transport.Probe(); !probed.ok()) {
    std::cerr << kProgram << ": cannot reach the echo service: " << probed << "\n";
    return 1;
  }
  // The start line names what was loaded; in registry mode that is the registry.
  if (options.target.empty()) options.target = channel.registry;
  std::cout << kProgram << ": " << DescribeChannels(channel, kEchoService) << std::endl;
  const LoadReport report(std::string{kProgram}, options, std::cout);
  const LoadSummary summary = driver.Run(transport, report);
  transport.Stop();
  report.PrintSummary(summary);
  return 0;
}

}  // namespace

const Command kEchoCommand = {
    .name = "echo",
    .summary = "closed-loop Echo calls on ferry.demo.EchoService (Delay for --slow-ratio)",
    .run = RunEcho,
};

}  // namespace ferry::bench
