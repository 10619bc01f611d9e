#include "filter/client_filter_chain.h"

#include <algorithm>
#include <string>

#include "filter/filter_guard.h"
#include "filter/new_filters.h"
#include "trace/trace_ids.h"

namespace ferry::filter {
namespace {

using Clock = ClientFilterChain::Clock;

FilterSite SiteOf(const std::string& filter, const MethodSpec& method) {
  return FilterSite{
      .side = "client", .filter = filter, .service = method.service, .method = method.method};
}

// Folds the served call's deadline and trace into a downstream call's options. DEADLINE_EXCEEDED
// when the served call has no time left, so nothing is sent that nobody waits for.
Status ApplyScope(const CallScope& scope, std::chrono::milliseconds default_timeout,
                  Clock::time_point now, CallOptions* options) {
  if (!trace::IsTraceId(options->trace_id)) {  // what is not a trace id is none
    options->trace_id = scope.trace_id;
    options->parent_span_id = scope.span_id;
    options->sampled = scope.sampled;
  }
  if (scope.deadline == Clock::time_point::max()) return Status::Ok();
  const auto left = std::chrono::floor<std::chrono::milliseconds>(scope.deadline - now);
  if (left <= std::chrono::milliseconds::zero()) {
    return Status(StatusCode::DEADLINE_EXCEEDED,
                  "the call being served has no time left for a downstream call");
  }
  const std::chrono::milliseconds own =
      options->timeout > std::chrono::milliseconds::zero() ? options->timeout : default_timeout;
  options->timeout = own > std::chrono::milliseconds::zero() ? std::min(own, left) : left;
  return Status::Ok();
}

// How a call of `options` with `body` travels, for ClientCall::framing: its timeout as the
// channel's send takes it, the call's own, else the channel's default.
RequestFraming FramingOf(const CallOptions& options, const codec::EncodedBody& body,
                         std::chrono::milliseconds default_timeout, size_t max_response_bytes) {
  const std::chrono::milliseconds timeout =
      options.timeout > std::chrono::milliseconds::zero() ? options.timeout : default_timeout;
  return RequestFraming{
      .timeout_us =
          timeout > std::chrono::milliseconds::zero()
              ? static_cast<uint64_t>(
                    std::chrono::duration_cast<std::chrono::microseconds>(timeout).count())
              : 0,
      .serializer = body.serializer,
      .compression = body.compression,
      .one_way = false,
      .max_response_bytes = max_response_bytes};
}

// One call between its first OnCall and its last OnDone, or between a scope's folding in and
// its restoring around `done`.
class ObservedCall {
 public:
  ObservedCall(std::shared_ptr<const void> keep, const ClientFilterChain::Filters* filters,
               const std::vector<std::string>* names, const FilterMethodStates* states,
               const MethodSpec& method, const google::protobuf::Message& request,
               const CallOptions& options, CallDone done, const CallScope* scope,
               const codec::BodyOptions& body_options, std::chrono::milliseconds default_timeout,
               size_t max_response_bytes)
      : keep_(std::move(keep)),
        filters_(filters),
        names_(names),
        states_(states),
        method_(method),
        request_(request),
        start_(Clock::now()),
        options_(options),
        done_(std::move(done)),
        body_options_(body_options),
        default_timeout_(default_timeout),
        max_response_bytes_(max_response_bytes) {
    if (scope != nullptr) scope_ = *scope;
    if (filters_ != nullptr) call_states_.resize(filters_->size());
  }

  Clock::time_point start() const { return start_; }
  const CallOptions& options() const { return options_; }
  // What the filters saw; null without filters, when the send encodes the request itself.
  const codec::EncodedBody* body() const { return filters_ != nullptr ? &body_ : nullptr; }

  // False when the call is already finished: its scope had no time left or a filter rejected it.
  bool Begin(std::chrono::milliseconds default_timeout, bool has_scope) {
    if (has_scope) {
      if (Status status = ApplyScope(scope_, default_timeout, start_, &options_); !status.ok()) {
        Finish(status);
        return false;
      }
    }
    // Chosen here rather than by the transport so that client filters log the id the server sees;
    // one that is not a W3C trace id is replaced, as the server would replace it.
    if (!trace::IsTraceId(options_.trace_id)) trace::FillRandomTraceId(&options_.trace_id);
    if (filters_ == nullptr) return true;
    if (Status encoded = codec::EncodeBody(request_, body_options_, &body_); !encoded.ok()) {
      Finish(encoded);
      return false;
    }
    for (size_t i = 0; i < filters_->size(); ++i) {
      const RequestFraming framing =
          FramingOf(options_, body_, default_timeout_, max_response_bytes_);
      ClientCall call{method_,     request_, options_, {(*states_)[i].get(), nullptr},
                      body_.bytes, framing};
      bool threw = false;
      const Status status = GuardedOnCall(*(*filters_)[i], call, Site(i), &threw);
      if (!threw) {
        ++entered_;
        call_states_[i] = call.state.call_state;
      }
      if (!status.ok()) {
        Finish(status);
        return false;
      }
    }
    return true;
  }

  // Deletes the call.
  void Finish(const Status& status) {
    std::unique_ptr<ObservedCall> owned(this);
    if (entered_ > 0) {
      const auto latency = Clock::now() - start_;
      for (size_t i = entered_; i-- > 0;) {
        const RequestFraming framing =
            FramingOf(options_, body_, default_timeout_, max_response_bytes_);
        const ClientCall call{method_,     request_,
                              options_,    {(*states_)[i].get(), call_states_[i]},
                              body_.bytes, framing};
        GuardedOnDone(*(*filters_)[i], call, status, latency, Site(i));
      }
    }
    // A continuation that calls on belongs to the served call too.
    ScopedCallScope scoped(&scope_);
    done_(status);
  }

 private:
  FilterSite Site(size_t filter) const { return SiteOf((*names_)[filter], method_); }

  // The chain's filters, their names and method states, kept alive until the last OnDone,
  // which may come after the channel is gone.
  const std::shared_ptr<const void> keep_;
  const ClientFilterChain::Filters* const filters_;
  const std::vector<std::string>* const names_;
  const FilterMethodStates* const states_;
  const MethodSpec& method_;
  const google::protobuf::Message& request_;  // gone once the call completed
  const Clock::time_point start_;
  CallOptions options_;
  CallDone done_;
  const codec::BodyOptions body_options_;
  const std::chrono::milliseconds default_timeout_;
  const size_t max_response_bytes_;
  codec::EncodedBody body_;
  CallScope scope_;
  std::vector<void*> call_states_;
  size_t entered_ = 0;  // filters whose OnCall ran
};

}  // namespace

ClientFilterChain::Shared::Shared(Filters filters_in, std::vector<std::string> names_in)
    : filters(std::move(filters_in)),
      names(std::move(names_in)),
      observes_done(std::any_of(filters.begin(), filters.end(),
                                [](const auto& filter) { return filter->ObservesDone(); })),
      states([this](const MethodSpec& method) {
        FilterMethodStates made;
        made.reserve(filters.size());
        for (const auto& filter : filters) made.push_back(filter->NewMethodState(method));
        return made;
      }) {}

Status ClientFilterChain::Create(const std::vector<FilterSpec>& specs,
                                 std::chrono::milliseconds default_timeout,
                                 const codec::BodyOptions& body_options, size_t max_response_bytes,
                                 ClientFilterChain* out) {
  Filters filters;
  if (Status status = NewClientFilters(specs, &filters); !status.ok()) return status;
  out->default_timeout_ = default_timeout;
  out->body_options_ = body_options;
  out->max_response_bytes_ = max_response_bytes;
  out->filters_ = nullptr;
  if (filters.empty()) return Status::Ok();
  std::vector<std::string> names;
  for (const FilterSpec& spec : specs) names.push_back(spec.name);
  out->filters_ = std::make_shared<const Shared>(std::move(filters), std::move(names));
  return Status::Ok();
}

void ClientFilterChain::CopyOptions(const CallOptions& from, CallOptions* to) {
  to->timeout = from.timeout;
  if (!from.attachments.empty() || !to->attachments.empty()) to->attachments = from.attachments;
  to->request_id = from.request_id;
  if (!from.trace_id.empty() || !to->trace_id.empty()) to->trace_id = from.trace_id;
  if (!from.parent_span_id.empty() || !to->parent_span_id.empty()) {
    to->parent_span_id = from.parent_span_id;
  }
  to->sampled = from.sampled;
  if (!from.auth_token.empty() || !to->auth_token.empty()) to->auth_token = from.auth_token;
  to->hash_key = from.hash_key;
  to->cancellation = from.cancellation;
  static_assert(sizeof(CallOptions) == 192, "copy the new field of CallOptions here");
}

Status ClientFilterChain::RunBlindFilters(const MethodSpec& method,
                                          const google::protobuf::Message& request,
                                          CallOptions& options, codec::EncodedBody* body) const {
  // Chosen here rather than by the transport so that client filters log the id the server sees;
  // one that is not a W3C trace id is replaced, as the server would replace it.
  if (!trace::IsTraceId(options.trace_id)) trace::FillRandomTraceId(&options.trace_id);
  if (Status encoded = codec::EncodeBody(request, body_options_, body); !encoded.ok()) {
    return encoded;
  }
  const FilterMethodStates& states = filters_->states.For(method);
  for (size_t i = 0; i < filters_->filters.size(); ++i) {
    const RequestFraming framing = FramingOf(options, *body, default_timeout_, max_response_bytes_);
    ClientCall call{method, request, options, {states[i].get(), nullptr}, body->bytes, framing};
    bool threw = false;
    if (Status status =
            GuardedOnCall(*filters_->filters[i], call, SiteOf(filters_->names[i], method), &threw);
        !status.ok()) {
      return status;
    }
  }
  return Status::Ok();
}

void ClientFilterChain::RunObserved(const MethodSpec& method,
                                    const google::protobuf::Message& request,
                                    const CallOptions& options, CallDone&& done,
                                    const CallScope* scope, const SendFn& send) const {
  const Filters* filters = filters_ != nullptr ? &filters_->filters : nullptr;
  const std::vector<std::string>* names = filters_ != nullptr ? &filters_->names : nullptr;
  const FilterMethodStates* states = filters_ != nullptr ? &filters_->states.For(method) : nullptr;
  auto* call =
      new ObservedCall(filters_, filters, names, states, method, request, options, std::move(done),
                       scope, body_options_, default_timeout_, max_response_bytes_);
  if (!call->Begin(default_timeout_, scope != nullptr)) return;
  send(
      call->options(), call->start(), [call](const Status& status) { call->Finish(status); },
      call->body());
}

}  // namespace ferry::filter
