#pragma once

#include <cstdint>
#include <string_view>

namespace ferry {

// The 64-bit hash of a consistent-hashing key: the channel hashes the configured request field
// with it (SelectRequest::hash_key), and the ring places providers with it. The value depends
// only on the bytes, never on the host's endianness or the process, so every client of a service
// maps a key to the same provider.
uint64_t HashKey(std::string_view key);

}  // namespace ferry
