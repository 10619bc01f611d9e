#include "server/slow_call_log.h"

#include "logger.h"

namespace ferry::server {

void SlowCallLog::Record(SlowCall call) {
  // Escaped as the access log escapes them: one slow call is one line whatever its fields hold.
  const auto word = [](const std::string& text) { return LogEscaped(text, /*word=*/true); };
  Logger().warn("slow call {} took {} ms, answered {}; trace={} span={} parent={} peer={}",
                word(call.call), std::chrono::duration<double, std::milli>(call.latency).count(),
                StatusCodeName(call.status), word(call.trace_id), word(call.span_id),
                word(call.parent_span_id), word(call.peer));
  MutexLock lock(mu_);
  calls_.push_front(std::move(call));
  if (calls_.size() > kKept) calls_.pop_back();
}

std::vector<SlowCall> SlowCallLog::Recent() const {
  MutexLock lock(mu_);
  return {calls_.begin(), calls_.end()};
}

}  // namespace ferry::server
