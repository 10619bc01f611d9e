#include "filter/filtered_channel.h"

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
        start_(Clock::now()),
        options_(options),
        call_{method, request, options_, start_},
        done_(std::move(done)) {
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
  const Clock::time_point start_;
  CallOptions options_;
  ClientCall call_;
  CallDone done_;
  size_t entered_ = 0;  // filters whose OnCall ran
};

}  // namespace

FilteredChannel::FilteredChannel(Filters filters, std::shared_ptr<Channel> inner)
    : observes_done_(!BlindChain::AllBlind(filters)),
      filters_(observes_done_ ? std::make_shared<const Filters>(std::move(filters)) : nullptr),
      blind_(observes_done_ ? BlindChain() : BlindChain(std::move(filters))),
      inner_(std::move(inner)) {}

void FilteredChannel::CallMethod(const MethodSpec& method, const google::protobuf::Message& request,
                                 google::protobuf::Message* response, const CallOptions& options,
                                 CallDone done) {
  if (!observes_done_) {
    blind_.Run(method, request, options, done, [&](CallOptions& changed, Clock::time_point) {
      inner_->CallMethod(method, request, response, changed, std::move(done));
    });
    return;
  }
  auto* call = new FilteredCall(filters_, method, request, options, std::move(done));
  if (!call->RunOnCall()) return;
  inner_->CallMethod(method, request, response, call->options(),
                     [call](const Status& status) { call->Finish(status); });
}

std::shared_ptr<Channel> WithFilters(FilteredChannel::Filters filters,
                                     std::shared_ptr<Channel> inner) {
  if (filters.empty()) return inner;
  return std::make_shared<FilteredChannel>(std::move(filters), std::move(inner));
}

}  // namespace ferry::filter
