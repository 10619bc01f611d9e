#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "ferry/codec/frame_decoder.h"
#include "ferry/framework/call_options.h"
#include "ferry/framework/method_spec.h"

namespace ferry::wire {
class RpcMeta;
}

namespace ferry::client {

// What a request meta says besides the method and the caller's options.
struct RequestLimits {
  uint64_t timeout_us = 0;                                   // 0: no deadline
  size_t max_response_bytes = codec::kDefaultMaxFrameBytes;  // the client's max_frame_bytes
};

// Replaces `*meta` with the request meta of a call: the method, what the caller set in
// `options` (a random trace id when it set none or one that is not a W3C trace id), a new span
// id and `limits`. Reuses meta's strings, so a meta kept per thread is rebuilt without
// allocating.
void FillRequestMeta(const MethodSpec& method, const CallOptions& options, RequestLimits limits,
                     wire::RpcMeta* meta);
// The same from options the caller is done with: their trace id and auth token are swapped
// into `meta` rather than copied, and `options` is left with meta's old ones.
void FillRequestMeta(const MethodSpec& method, CallOptions&& options, RequestLimits limits,
                     wire::RpcMeta* meta);

}  // namespace ferry::client
