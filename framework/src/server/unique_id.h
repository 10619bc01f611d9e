#pragma once

#include <atomic>
#include <cstdint>

namespace ferry::server {

// A number never handed out before in this process, counting from 1: for ids that filters'
// caches key by without fear of reuse (ServerContext::method_id(), auth_token_id()).
inline uint64_t NextUniqueId() {
  static std::atomic<uint64_t> last{0};
  return last.fetch_add(1, std::memory_order_relaxed) + 1;
}

}  // namespace ferry::server
