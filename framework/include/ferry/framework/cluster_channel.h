#pragma once

#include <memory>

#include "ferry/codec/status.h"
#include "ferry/framework/channel.h"
#include "ferry/framework/cluster_options.h"
#include "ferry/framework/registry.h"

namespace ferry {

// A channel to every provider of `options.service` that `registry` knows, following its
// updates: each call is sent to a provider the configured load balancer picks, and failures are
// handled as `options.fault_tolerance` (or the method's entry in `method_fault_tolerance`) says,
// with sick providers ejected per `options.outlier` (docs/fault-tolerance.md).
//
// Waits up to `options.client.connect_timeout` for the registry's first provider list; calls
// made while no provider is known fail with UNAVAILABLE. INVALID_ARGUMENT, naming the option,
// for an empty service, an unknown balancer, serializer, compressor or fault-tolerance mode,
// max_attempts 0, or a ratio outside [0, 1]. The registry must outlive the channel.
Status NewClusterChannel(const ClusterOptions& options, std::shared_ptr<Registry> registry,
                         std::shared_ptr<Channel>* out);

}  // namespace ferry
