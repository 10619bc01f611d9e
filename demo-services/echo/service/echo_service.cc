#include "service/echo_service.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

namespace ferry::demo {

namespace {

using Clock = std::chrono::steady_clock;

// Short enough that a cancelled call releases its business thread promptly.
constexpr std::chrono::milliseconds kSleepStep{5};

// False when the context was cancelled before `duration` elapsed.
bool SleepUnlessCancelled(const ServerContext& context, std::chrono::milliseconds duration) {
  const Clock::time_point until = Clock::now() + duration;
  while (!context.cancelled()) {
    const Clock::duration left = until - Clock::now();
    if (left <= Clock::duration::zero()) return true;
    std::this_thread::sleep_for(std::min<Clock::duration>(left, kSleepStep));
  }
  return false;
}

}  // namespace

Status EchoServiceImpl::Echo(ServerContext&, const EchoRequest& request, EchoResponse* response) {
  response->set_payload(request.payload());
  return Status::Ok();
}

Status EchoServiceImpl::Delay(ServerContext& context, const DelayRequest& request,
                              EchoResponse* response) {
  if (!SleepUnlessCancelled(context, std::chrono::milliseconds(request.sleep_ms()))) {
    return Status(StatusCode::CANCELLED, "Delay cancelled by the caller while sleeping");
  }
  if (request.fail_code() != 0) {
    if (request.fail_code() > static_cast<uint32_t>(StatusCode::DRAINING)) {
      return Status(
          StatusCode::INVALID_ARGUMENT,
          "fail_code " + std::to_string(request.fail_code()) + " is no ferry::StatusCode");
    }
    return Status(static_cast<StatusCode>(request.fail_code()), request.fail_message());
  }
  if (request.throw_exception()) {
    throw std::runtime_error("Delay threw as the request asked");
  }
  response->set_payload(request.payload());
  return Status::Ok();
}

}  // namespace ferry::demo
