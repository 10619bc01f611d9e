#pragma once

#include <chrono>
#include <memory>
#include <utility>
#include <vector>

#include "ferry/framework/channel.h"
#include "ferry/framework/filter.h"

namespace ferry::filter {

// Client filters none of which observes completions (ClientFilter::ObservesDone() is false for
// each): a call keeps no state for them, so they run on a copy of its options, from which the
// call is then sent, and `done` passes through untouched. The copy is this thread's scratch,
// whose strings keep their capacity from call to call, unless a completion run inside the send
// makes a call of its own.
class BlindChain {
 public:
  using Filters = std::vector<std::shared_ptr<ClientFilter>>;
  using Clock = std::chrono::steady_clock;

  BlindChain() = default;
  explicit BlindChain(Filters filters);

  // Whether every filter of `filters` is blind to completions.
  static bool AllBlind(const Filters& filters);

  bool empty() const { return filters_.empty(); }

  // Runs the filters on a copy of `options`, then `send(changed, started)`: a CallOptions& it
  // may take strings from, and when the call started (ClientCall::started). When a filter
  // rejects the call, `done(status)` instead, and nothing is sent.
  template <class Send>
  void Run(const MethodSpec& method, const google::protobuf::Message& request,
           const CallOptions& options, CallDone& done, Send&& send) const {
    thread_local CallOptions scratch;
    thread_local bool scratch_in_use = false;
    const Clock::time_point started = Clock::now();
    if (scratch_in_use) {
      RunReentered(method, request, options, started, done, send);
      return;
    }
    scratch_in_use = true;
    struct Release {
      ~Release() { scratch_in_use = false; }
    } release;
    CopyOptions(options, &scratch);
    if (Status status = RunFilters(ClientCall{method, request, scratch, started}); !status.ok()) {
      done(status);
      return;
    }
    send(scratch, started);
  }

 private:
  // `*to = from`, skipping the assignments of empty strings and maps to empty ones: the common
  // case, as the scratch's strings went into the previous request.
  static void CopyOptions(const CallOptions& from, CallOptions* to) {
    to->timeout = from.timeout;
    if (!from.attachments.empty() || !to->attachments.empty()) to->attachments = from.attachments;
    to->request_id = from.request_id;
    if (!from.trace_id.empty() || !to->trace_id.empty()) to->trace_id = from.trace_id;
    if (!from.auth_token.empty() || !to->auth_token.empty()) to->auth_token = from.auth_token;
    to->hash_key = from.hash_key;
    static_assert(sizeof(CallOptions) == 144, "copy the new field of CallOptions here");
  }

  // Fills a missing trace id, so that the filters see the one the server will, then runs them.
  Status RunFilters(ClientCall call) const;

  // Out of line: a CallOptions on the stack of the common path would cost it a memset.
  template <class Send>
  [[gnu::noinline]] void RunReentered(const MethodSpec& method,
                                      const google::protobuf::Message& request,
                                      const CallOptions& options, Clock::time_point started,
                                      CallDone& done, Send& send) const {
    CallOptions changed = options;
    if (Status status = RunFilters(ClientCall{method, request, changed, started}); !status.ok()) {
      done(status);
      return;
    }
    send(changed, started);
  }

  Filters filters_;
};

}  // namespace ferry::filter
