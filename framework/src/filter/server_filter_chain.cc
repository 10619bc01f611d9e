#include "filter/server_filter_chain.h"

#include <algorithm>
#include <exception>

#include "filter/filter_guard.h"
#include "filter/new_filters.h"

namespace ferry::filter {
namespace {

FilterSite SiteOf(const std::string& filter, const ServerContext& context) {
  return FilterSite{
      .side = "server", .filter = filter, .service = context.service(), .method = context.method()};
}

}  // namespace

Status ServerFilterChain::Create(
    const std::vector<FilterSpec>& specs,
    const std::vector<std::pair<std::string, std::shared_ptr<ServerFilter>>>& added,
    ServerFilterChain* out) {
  if (Status status = NewServerFilters(specs, &out->filters_); !status.ok()) return status;
  out->names_.clear();
  for (const FilterSpec& spec : specs) out->names_.push_back(spec.name);
  for (const auto& [name, filter] : added) {
    out->filters_.push_back(filter);
    out->names_.push_back(name);
  }
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

Status ServerFilterChain::OnServerStart() const {
  for (size_t i = 0; i < filters_.size(); ++i) {
    Status status;
    try {
      status = filters_[i]->OnServerStart();
    } catch (const std::exception& e) {
      status = Status(StatusCode::INTERNAL,
                      "server filter " + names_[i] + " threw in OnServerStart: " + e.what());
    }
    if (!status.ok()) return status;
  }
  return Status::Ok();
}

Status ServerFilterChain::AdmitFilters(AdmissionContext& context, std::string_view body,
                                       const RequestFraming& framing,
                                       const FilterMethodStates& states,
                                       ServerFilterPass* pass) const {
  for (size_t i = 0; i < filters_.size(); ++i) {
    const ServerAdmission request{context, body, states[i].get(), framing};
    if (Status status = GuardedOnAdmit(*filters_[i], request, SiteOf(names_[i], context));
        !status.ok()) {
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

Status ServerFilterChain::EnterFilters(AdmissionContext& context,
                                       const google::protobuf::Message& request,
                                       const FilterMethodStates& states,
                                       ServerFilterPass* pass) const {
  if (observes_done_) {
    pass->start = std::chrono::steady_clock::now();
    pass->call_states.assign(filters_.size(), nullptr);
  }
  for (size_t i = 0; i < filters_.size(); ++i) {
    ServerCall call{context, request, {states[i].get(), nullptr}};
    bool threw = false;
    const Status status = GuardedOnCall(*filters_[i], call, SiteOf(names_[i], context), &threw);
    if (threw) return status;
    ++pass->entered;
    if (observes_done_) pass->call_states[i] = call.state.call_state;
    if (!status.ok()) return status;
  }
  return Status::Ok();
}

void ServerFilterChain::LeaveFilters(AdmissionContext& context,
                                     const google::protobuf::Message& request,
                                     const FilterMethodStates& states, const Status& status,
                                     ServerFilterPass* pass) const {
  const auto latency = std::chrono::steady_clock::now() - pass->start;
  for (size_t i = pass->entered; i-- > 0;) {
    const ServerCall call{context, request, {states[i].get(), pass->call_states[i]}};
    GuardedOnDone(*filters_[i], call, status, latency, SiteOf(names_[i], context));
  }
}

}  // namespace ferry::filter
