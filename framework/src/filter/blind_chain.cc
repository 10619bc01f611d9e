#include "filter/blind_chain.h"

#include <algorithm>

#include "client/request_meta.h"

namespace ferry::filter {

BlindChain::BlindChain(Filters filters) : filters_(std::move(filters)) {}

bool BlindChain::AllBlind(const Filters& filters) {
  return std::none_of(filters.begin(), filters.end(),
                      [](const auto& filter) { return filter->ObservesDone(); });
}

Status BlindChain::RunFilters(ClientCall call) const {
  // Chosen here rather than by the transport so that client filters log the id the server sees.
  if (call.options.trace_id.empty()) client::FillRandomTraceId(&call.options.trace_id);
  for (const auto& filter : filters_) {
    if (Status status = filter->OnCall(call); !status.ok()) return status;
  }
  return Status::Ok();
}

}  // namespace ferry::filter
