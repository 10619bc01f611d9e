#pragma once

#include <string>
#include <string_view>

#include "ferry/codec/status.h"
#include "ferry/framework/registry.h"

namespace ferry::registry {

// The data of a provider's znode: a header line naming the format version, then one key=value
// per line (docs/registry.md). The address is the znode's name and is not repeated here.
//
//   ferry-provider 1
//   weight=100
//   version=1.2.0
//   group=blue
//   zone=az-1
//   start_time_ms=1732900000000
//   methods=Echo,Delay
inline constexpr std::string_view kProviderRecordHeader = "ferry-provider 1";

// INVALID_ARGUMENT for an address that is not host:port, and for a value that cannot be
// written unambiguously: a line break anywhere, or a method name that is empty or holds ','.
Status EncodeProviderRecord(const ProviderInfo& provider, std::string* out);

// DATA_LOSS, saying what is wrong, for anything but a version-1 record. Keys it does not know
// are ignored and missing keys keep their defaults, so that writers can add fields later
// without breaking older readers.
Status DecodeProviderRecord(std::string_view address, std::string_view data, ProviderInfo* out);

}  // namespace ferry::registry
