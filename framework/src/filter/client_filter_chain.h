#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ferry/codec/message_codec.h"
#include "ferry/framework/call_scope.h"
#include "ferry/framework/channel.h"
#include "ferry/framework/filter.h"
#include "filter/filter_method_states.h"
#include "method/per_method_cache.h"

namespace ferry::filter {

// The front of every channel: folds the scope of the call being served (CurrentCallScope) into
// the call, runs the client filters, then hands the call on to the channel's own send. Takes
// its fast paths itself:
// - no filter and no scope: the caller's options and `done` go on untouched;
// - no filter observes completions: the filters run on this thread's scratch copy of the
//   options, from which the call is sent, and `done` passes through unwrapped;
// - otherwise a call object keeps the filters' per-call state until the last OnDone.
class ClientFilterChain {
 public:
  using Filters = std::vector<std::shared_ptr<ClientFilter>>;
  using Clock = std::chrono::steady_clock;

  ClientFilterChain() = default;

  // The filters `specs` name, made and configured (errors as NewClientFilters()).
  // `default_timeout`: the channel's, which a served call's shorter deadline overrides;
  // `body_options`: how the channel encodes request bodies, for ClientCall::body;
  // `max_response_bytes`: the channel's max_frame_bytes, for ClientCall::framing.
  static Status Create(const std::vector<FilterSpec>& specs,
                       std::chrono::milliseconds default_timeout,
                       const codec::BodyOptions& body_options, size_t max_response_bytes,
                       ClientFilterChain* out);

  // Runs the filters, then `send(options, started, done, body)`: the options to send the call
  // with, a const CallOptions& or a CallOptions&& whose strings the send may take; when the
  // call started (its deadline runs from then); the CallDone&& that completes it; and the
  // request's body as the filters saw it (ClientCall::body), which the send must send as it is,
  // or null when there are no filters and the send encodes the request itself. The body stays
  // valid until the send returns or `done` runs, whichever is first: a send that resends it
  // later copies it (a cluster call's EncodedRequest). When a filter rejects the call (or throws:
  // INTERNAL, see filter_guard.h), the body cannot be encoded, or the served call's deadline has
  // already passed, `done(status)` instead, and nothing is sent.
  template <class Send>
  void Run(const MethodSpec& method, const google::protobuf::Message& request,
           const CallOptions& options, CallDone&& done, Send&& send) const {
    const CallScope* scope = CurrentCallScope();
    if (scope == nullptr && filters_ == nullptr) {
      send(options, Clock::now(), std::move(done), nullptr);
    } else if (scope == nullptr && !filters_->observes_done) {
      RunBlind(method, request, options, std::move(done), send);
    } else {
      RunObserved(method, request, options, std::move(done), scope, ErasedSend(send));
    }
  }

 private:
  struct Shared {
    Shared(Filters filters, std::vector<std::string> names);
    const Filters filters;
    const std::vector<std::string> names;  // by filter, as configured
    const bool observes_done;              // some filter's OnDone does something
    mutable method::PerMethodCache<FilterMethodStates> states;
  };
  using SendFn = std::function<void(const CallOptions&, Clock::time_point, CallDone&&,
                                    const codec::EncodedBody*)>;

  template <class Send>
  static SendFn ErasedSend(Send& send) {
    return
        [&send](const CallOptions& options, Clock::time_point started, CallDone&& done,
                const codec::EncodedBody* body) { send(options, started, std::move(done), body); };
  }

  template <class Send>
  void RunBlind(const MethodSpec& method, const google::protobuf::Message& request,
                const CallOptions& options, CallDone&& done, Send& send) const {
    thread_local CallOptions scratch;
    thread_local codec::EncodedBody scratch_body;
    thread_local bool scratch_in_use = false;
    const Clock::time_point started = Clock::now();
    if (scratch_in_use) {
      // A completion run inside the send made a call of its own.
      RunObserved(method, request, options, std::move(done), nullptr, ErasedSend(send));
      return;
    }
    scratch_in_use = true;
    struct Release {
      ~Release() { scratch_in_use = false; }
    } release;
    CopyOptions(options, &scratch);
    if (Status status = RunBlindFilters(method, request, scratch, &scratch_body); !status.ok()) {
      done(status);
      return;
    }
    send(std::move(scratch), started, std::move(done), &scratch_body);
  }

  // `*to = from`, skipping the assignments of empty strings and maps to empty ones: the common
  // case, as the scratch's strings went into the previous request.
  static void CopyOptions(const CallOptions& from, CallOptions* to);
  // Encodes the body into `*body`, then runs the filters.
  Status RunBlindFilters(const MethodSpec& method, const google::protobuf::Message& request,
                         CallOptions& options, codec::EncodedBody* body) const;
  // Through a call object: for a scope to fold in and restore around `done`, for filters that
  // observe completions, or for a blind chain re-entered from inside its own send.
  void RunObserved(const MethodSpec& method, const google::protobuf::Message& request,
                   const CallOptions& options, CallDone&& done, const CallScope* scope,
                   const SendFn& send) const;

  std::chrono::milliseconds default_timeout_{0};
  codec::BodyOptions body_options_;
  size_t max_response_bytes_ = codec::kDefaultMaxFrameBytes;
  std::shared_ptr<const Shared> filters_;  // null without filters
};

}  // namespace ferry::filter
