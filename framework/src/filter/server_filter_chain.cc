#include "filter/server_filter_chain.h"

#include <algorithm>

#include "filter/new_filters.h"

namespace ferry::filter {

Status ServerFilterChain::Create(const std::vector<FilterSpec>& specs, ServerFilterChain* out) {
  if (Status status = NewServerFilters(specs, &out->filters_); !status.ok()) return status;
  out->observes_done_ = std::any_of(out->filters_.begin(), out->filters_.end(),
                                    [](const auto& filter) { return filter->ObservesDone(); });
  return Status::Ok();
}

FilterMethodStates ServerFilterChain::NewMethodStates(const MethodSpec& method) const {
  FilterMethodStates states;
  states.reserve(filters_.size());
  for (const auto& filter : filters_) states.push_back(filter->NewMethodState(method));
  return states;
}

Status ServerFilterChain::AdmitFilters(const ServerContext& context, std::string_view body,
                                       const FilterMethodStates& states,
                                       ServerFilterPass* pass) const {
  for (size_t i = 0; i < filters_.size(); ++i) {
    if (Status status = filters_[i]->OnAdmit({context, body, states[i].get()}); !status.ok()) {
      if (observes_done_) {
        pass->start = std::chrono::steady_clock::now();
        pass->call_states.assign(filters_.size(), nullptr);
        pass->entered = i;
      }
      return status;
    }
  }
  return Status::Ok();
}

Status ServerFilterChain::EnterFilters(ServerContext& context,
                                       const google::protobuf::Message& request,
                                       const FilterMethodStates& states,
                                       ServerFilterPass* pass) const {
  if (observes_done_) {
    pass->start = std::chrono::steady_clock::now();
    pass->call_states.assign(filters_.size(), nullptr);
  }
  for (size_t i = 0; i < filters_.size(); ++i) {
    ServerCall call{context, request, {states[i].get(), nullptr}};
    ++pass->entered;
    const Status status = filters_[i]->OnCall(call);
    if (observes_done_) pass->call_states[i] = call.state.call_state;
    if (!status.ok()) return status;
  }
  return Status::Ok();
}

void ServerFilterChain::LeaveFilters(ServerContext& context,
                                     const google::protobuf::Message& request,
                                     const FilterMethodStates& states, const Status& status,
                                     ServerFilterPass* pass) const {
  const auto latency = std::chrono::steady_clock::now() - pass->start;
  for (size_t i = pass->entered; i-- > 0;) {
    const ServerCall call{context, request, {states[i].get(), pass->call_states[i]}};
    filters_[i]->OnDone(call, status, latency);
  }
}

}  // namespace ferry::filter
