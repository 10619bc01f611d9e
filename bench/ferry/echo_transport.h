#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "echo.ferry.h"
#include "ferry/bench/load_driver.h"
#include "ferry/bench/load_options.h"
#include "ferry/codec/status.h"
#include "ferry/framework/call_options.h"
#include "ferry/framework/channel.h"

namespace ferry::bench {

// The closed loop's transport for ferry.demo.EchoService, through the generated proxy's callback
// form: Echo for ordinary calls, Delay (served on the provider's business pool) for the slow ones.
// Requests are built once per slot and reused by every call the slot makes.
class EchoTransport final : public LoadDriver::Transport {
 public:
  // `channels[call.connection]` carries each call, so there must be one per --conns.
  EchoTransport(LoadDriver& driver, const LoadOptions& options,
                std::vector<std::shared_ptr<Channel>> channels);
  ~EchoTransport() override;

  // One blocking Echo on every channel, so that connecting happens before the clock starts and
  // an unreachable service is reported as such rather than as a run of errors.
  Status Probe();

  void Issue(const LoadDriver::Call& call) override;

  // Closes the channels, which completes the calls still out as CANCELLED; once it returns the
  // driver hears nothing more.
  void Stop();

 private:
  struct Slot {
    LoadDriver::Call call{};
    LoadDriver::Clock::time_point sent;
    demo::EchoRequest echo;
    demo::DelayRequest delay;
  };

  void OnDone(Slot& slot, const Result<demo::EchoResponse>& result);

  LoadDriver& driver_;
  const uint32_t payload_size_;
  const CallOptions call_options_;  // timeout left to the channel's default (--timeout-ms)
  std::vector<demo::EchoServiceProxy> proxies_;
  std::unique_ptr<Slot[]> slots_;
};

}  // namespace ferry::bench
