#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ferry/codec/status.h"
#include "ferry/framework/filter.h"
#include "filter/filter_method_states.h"

namespace ferry::filter {

// One call's passage through a server's filters, kept by the call from Enter() to Leave().
struct ServerFilterPass {
  size_t entered = 0;                             // filters whose OnCall ran
  std::chrono::steady_clock::time_point start{};  // only timed for filters that observe
  std::vector<void*> call_states;                 // FilterState::call_state by filter
};

// The server filters every call of one server runs through, in configured order. Calls may
// complete later than their handler returns (asynchronous handlers), so a call enters the
// chain before its handler starts and leaves it when it completes.
class ServerFilterChain {
 public:
  // The filters of `specs`, then `added` (Server::AddFilter); empty when both are. Errors as
  // NewServerFilters().
  static Status Create(
      const std::vector<FilterSpec>& specs,
      const std::vector<std::pair<std::string, std::shared_ptr<ServerFilter>>>& added,
      ServerFilterChain* out);

  bool empty() const { return filters_.empty(); }

  // Each filter's state for `method` (Filter::NewMethodState), made once per method at start.
  FilterMethodStates NewMethodStates(const MethodSpec& method) const;
  // OnServerStart of each filter in order, once every method's states are made; the first
  // refusal (or a throw, as INTERNAL) is returned.
  Status OnServerStart() const;

  // OnAdmit of each filter in order, until one refuses the request: its status is returned,
  // and the filters before it count as entered, so that Leave() gives them OnDone (with the
  // undecoded, empty request): an access log still logs what was refused.
  Status Admit(AdmissionContext& context, std::string_view body, const RequestFraming& framing,
               const FilterMethodStates& states, ServerFilterPass* pass) const {
    if (filters_.empty()) return Status::Ok();
    return AdmitFilters(context, body, framing, states, pass);
  }
  // OnCall of each filter in order, until one rejects the call (or throws: INTERNAL, see
  // filter_guard.h): its status is returned, and the handler must not run. Either way the call
  // must Leave() once it completes.
  Status Enter(AdmissionContext& context, const google::protobuf::Message& request,
               const FilterMethodStates& states, ServerFilterPass* pass) const {
    if (filters_.empty()) return Status::Ok();
    return EnterFilters(context, request, states, pass);
  }
  // OnDone in reverse order for each filter that entered.
  void Leave(AdmissionContext& context, const google::protobuf::Message& request,
             const FilterMethodStates& states, const Status& status, ServerFilterPass* pass) const {
    if (pass->entered != 0 && observes_done_) LeaveFilters(context, request, states, status, pass);
    pass->entered = 0;
  }

 private:
  Status AdmitFilters(AdmissionContext& context, std::string_view body,
                      const RequestFraming& framing, const FilterMethodStates& states,
                      ServerFilterPass* pass) const;
  Status EnterFilters(AdmissionContext& context, const google::protobuf::Message& request,
                      const FilterMethodStates& states, ServerFilterPass* pass) const;
  void LeaveFilters(AdmissionContext& context, const google::protobuf::Message& request,
                    const FilterMethodStates& states, const Status& status,
                    ServerFilterPass* pass) const;

  std::vector<std::shared_ptr<ServerFilter>> filters_;
  std::vector<std::string> names_;  // by filter, as configured
  // Some filter's OnDone does something: calls are timed and their states kept for it.
  bool observes_done_ = false;
};

}  // namespace ferry::filter
