#include "filter/filtered_channel.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "client/request_meta.h"

namespace ferry::filter {
namespace {

using Clock = std::chrono::steady_clock;

// One call between its first OnCall and its last OnDone.
class FilteredCall {
 public:
  FilteredCall(std::shared_ptr<const FilteredChannel::Filters> filters, const MethodSpec& method,
               const google::protobuf::Message& request, const CallOptions& options, CallDone done)
      : filters_(std::move(filters)),
        options_(options),
        call_{method, request, options_},
        done_(std::move(done)),
        start_(Clock::now()) {
    // Chosen here rather than by the transport so that client filters log the id the server sees.
    if (options_.trace_id.empty()) client::FillRandomTraceId(&options_.trace_id);
  }

  // False when a filter rejected the call, which is then already finished.
  bool RunOnCall() {
    for (const auto& filter : *filters_) {
      ++entered_;
      if (Status status = filter->OnCall(call_); !status.ok()) {
        Finish(status);
        return false;
      }
    }
    return true;
  }

  const CallOptions& options() const { return options_; }

  // Deletes the call.
  void Finish(const Status& status) {
    std::unique_ptr<FilteredCall> owned(this);
    const auto latency = Clock::now() - start_;
    for (size_t i = entered_; i-- > 0;) (*filters_)[i]->OnDone(call_, status, latency);
    done_(status);
  }

 private:
  const std::shared_ptr<const FilteredChannel::Filters> filters_;
  CallOptions options_;
  ClientCall call_;
  CallDone done_;
  const Clock::time_point start_;
  size_t entered_ = 0;  // filters whose OnCall ran
};

bool AnyObservesDone(const FilteredChannel::Filters& filters) {
  return std::any_of(filters.begin(), filters.end(),
                     [](const auto& filter) { return filter->ObservesDone(); });
}

}  // namespace

FilteredChannel::FilteredChannel(Filters filters, std::shared_ptr<Channel> inner)
    : filters_(std::make_shared<const Filters>(std::move(filters))),
      observes_done_(AnyObservesDone(*filters_)),
      inner_(std::move(inner)) {}

void FilteredChannel::CallMethod(const MethodSpec& method, const google::protobuf::Message& request,
                                 google::protobuf::Message* response, const CallOptions& options,
                                 CallDone done) {
  if (observes_done_) {
    CallKept(method, request, response, options, std::move(done));
    return;
  }
  // Nothing to do once the call completes, so nothing to keep: the filters change a copy of the
  // options, from which the inner channel copies what it keeps. The copy is this thread's
  // scratch, whose strings keep their capacity (an auth token would cost an allocation per
  // call), unless a completion run inside the inner call makes a call of its own.
  thread_local CallOptions scratch;
  thread_local bool scratch_in_use = false;
  if (scratch_in_use) {
    CallReentered(method, request, response, options, std::move(done));
    return;
  }
  scratch_in_use = true;
  struct Release {
    ~Release() { scratch_in_use = false; }
  } release;
  scratch = options;
  CallUnkept(method, request, response, scratch, std::move(done));
}

void FilteredChannel::CallKept(const MethodSpec& method, const google::protobuf::Message& request,
                               google::protobuf::Message* response, const CallOptions& options,
                               CallDone done) {
  auto* call = new FilteredCall(filters_, method, request, options, std::move(done));
  if (!call->RunOnCall()) return;
  inner_->CallMethod(method, request, response, call->options(),
                     [call](const Status& status) { call->Finish(status); });
}

// Out of line: a copy of CallOptions on the stack of the common path costs it a memset.
void FilteredChannel::CallReentered(const MethodSpec& method,
                                    const google::protobuf::Message& request,
                                    google::protobuf::Message* response, const CallOptions& options,
                                    CallDone done) {
  CallOptions changed = options;
  CallUnkept(method, request, response, changed, std::move(done));
}

void FilteredChannel::CallUnkept(const MethodSpec& method, const google::protobuf::Message& request,
                                 google::protobuf::Message* response, CallOptions& changed,
                                 CallDone&& done) {
  if (changed.trace_id.empty()) client::FillRandomTraceId(&changed.trace_id);
  ClientCall call{method, request, changed};
  for (const auto& filter : *filters_) {
    if (Status status = filter->OnCall(call); !status.ok()) {
      done(status);
      return;
    }
  }
  inner_->CallMethod(method, request, response, changed, std::move(done));
}

std::shared_ptr<Channel> WithFilters(FilteredChannel::Filters filters,
                                     std::shared_ptr<Channel> inner) {
  if (filters.empty()) return inner;
  return std::make_shared<FilteredChannel>(std::move(filters), std::move(inner));
}

}  // namespace ferry::filter
