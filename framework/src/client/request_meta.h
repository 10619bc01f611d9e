#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "ferry/framework/call_options.h"
#include "ferry/framework/method_spec.h"

namespace ferry::wire {
class RpcMeta;
}

namespace ferry::client {

// Replaces `*meta` with the request meta of a call: the method, what the caller set in
// `options` (a random trace id when it set none), a new span id and `timeout_us` (0: no
// deadline). Reuses
// meta's strings, so a meta kept per thread is rebuilt without allocating.
void FillRequestMeta(const MethodSpec& method, const CallOptions& options, uint64_t timeout_us,
                     wire::RpcMeta* meta);
// The same from options the caller is done with: their trace id and auth token are swapped
// into `meta` rather than copied, and `options` is left with meta's old ones.
void FillRequestMeta(const MethodSpec& method, CallOptions&& options, uint64_t timeout_us,
                     wire::RpcMeta* meta);

}  // namespace ferry::client
