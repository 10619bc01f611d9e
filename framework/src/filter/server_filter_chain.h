#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include "ferry/codec/status.h"
#include "ferry/framework/filter.h"

namespace ferry::filter {

// The server filters every call of one server runs through, in configured order.
class ServerFilterChain {
 public:
  // An empty chain when `specs` is empty; errors as NewServerFilters().
  static Status Create(const std::vector<FilterSpec>& specs, ServerFilterChain* out);

  // OnCall of each filter in order, then `handler()` if none rejected the call, then OnDone in
  // reverse order for each filter whose OnCall ran. Returns the call's answer: the handler's
  // status, or that of the filter that rejected the call.
  template <class Handler>
  Status Run(ServerContext& context, const google::protobuf::Message& request,
             Handler&& handler) const {
    if (filters_.empty()) return handler();
    if (!observes_done_) {
      ServerCall call{context, request};
      for (const auto& filter : filters_) {
        if (Status status = filter->OnCall(call); !status.ok()) return status;
      }
      return handler();
    }
    const auto start = std::chrono::steady_clock::now();
    ServerCall call{context, request};
    Status status;
    size_t entered = 0;
    while (status.ok() && entered < filters_.size()) status = filters_[entered++]->OnCall(call);
    if (status.ok()) status = handler();
    const auto latency = std::chrono::steady_clock::now() - start;
    for (size_t i = entered; i-- > 0;) filters_[i]->OnDone(call, status, latency);
    return status;
  }

 private:
  std::vector<std::shared_ptr<ServerFilter>> filters_;
  // Some filter's OnDone does something: calls are timed for it.
  bool observes_done_ = false;
};

}  // namespace ferry::filter
