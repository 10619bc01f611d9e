#include "server/slow_call_log.h"

#include "logger.h"

namespace ferry::server {

void SlowCallLog::Record(SlowCall call) {
  Logger().warn("slow call {} took {} ms, answered {}; trace={} span={} parent={} peer={}",
                call.call, std::chrono::duration<double, std::milli>(call.latency).count(),
                StatusCodeName(call.status), call.trace_id, call.span_id, call.parent_span_id,
                call.peer);
  std::lock_guard lock(mu_);
  calls_.push_front(std::move(call));
  if (calls_.size() > kKept) calls_.pop_back();
}

std::vector<SlowCall> SlowCallLog::Recent() const {
  std::lock_guard lock(mu_);
  return {calls_.begin(), calls_.end()};
}

}  // namespace ferry::server
