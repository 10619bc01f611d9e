#pragma once

#include <memory>

#include "ferry/codec/status.h"
#include "ferry/framework/channel.h"
#include "ferry/framework/config.h"
#include "ferry/framework/registry.h"

namespace ferry {

// The channel a `clients:` entry describes: NewChannel() for a `target`, NewClusterChannel()
// for a `service`, found through `registry`, or through a registry opened for the entry alone
// when it names a URL of its own (`registry_options` with that URL; the channel keeps it).
// INVALID_ARGUMENT naming the entry for a service with no registry to find it in.
Status NewConfiguredChannel(const ClientConfig& client, std::shared_ptr<Registry> registry,
                            const RegistryOptions& registry_options, std::shared_ptr<Channel>* out);

}  // namespace ferry
