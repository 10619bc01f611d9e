#include "echo_transport.h"

#include <string>
#include <string_view>
#include <utility>

namespace ferry::bench {
namespace {

using Clock = LoadDriver::Clock;

// An OK answer whose payload is not the one sent.
constexpr std::string_view kBadEcho = "BAD_ECHO";

}  // namespace

EchoTransport::EchoTransport(LoadDriver& driver, const LoadOptions& options,
                             std::vector<std::shared_ptr<Channel>> channels)
    : driver_(driver),
      payload_size_(options.size),
      slots_(std::make_unique<Slot[]>(size_t{options.conns} * options.depth)) {
  proxies_.reserve(channels.size());
  for (auto& channel : channels) proxies_.emplace_back(std::move(channel));
  const std::string payload(options.size, 'x');
  for (size_t i = 0; i < size_t{options.conns} * options.depth; ++i) {
    slots_[i].echo.set_payload(payload);
    slots_[i].delay.set_payload(payload);
    slots_[i].delay.set_sleep_ms(options.slow_ms);
  }
}

EchoTransport::~EchoTransport() { Stop(); }

Status EchoTransport::Probe() {
  for (size_t i = 0; i < proxies_.size(); ++i) {
    const Result<demo::EchoResponse> result = proxies_[i].Echo(slots_[0].echo, call_options_);
    if (!result.ok()) {
      return Status(result.status().code(),
                    "channel " + std::to_string(i) + ": " + result.status().message());
    }
  }
  return Status::Ok();
}

void EchoTransport::Issue(const LoadDriver::Call& call) {
  Slot& slot = slots_[call.slot];
  slot.call = call;
  // Two pointers: small enough for std::function's inline storage, so no allocation here.
  auto done = [this, &slot](Result<demo::EchoResponse> result) { OnDone(slot, result); };
  demo::EchoServiceProxy& proxy = proxies_[call.connection];
  slot.sent = Clock::now();
  if (call.slow) {
    proxy.DelayWithCallback(slot.delay, done, call_options_);
  } else {
    proxy.EchoWithCallback(slot.echo, done, call_options_);
  }
}

void EchoTransport::OnDone(Slot& slot, const Result<demo::EchoResponse>& result) {
  const auto latency = Clock::now() - slot.sent;
  std::string_view error;
  if (!result.ok()) {
    error = StatusCodeName(result.status().code());
  } else if (result->payload().size() != payload_size_) {
    error = kBadEcho;
  }
  // A copy: the driver may issue the slot's next call, overwriting slot.call, before it returns.
  const LoadDriver::Call call = slot.call;
  driver_.Complete(call, error, latency);
}

void EchoTransport::Stop() { proxies_.clear(); }

}  // namespace ferry::bench
