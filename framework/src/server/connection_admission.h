#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>

#include "thread_annotations.h"

namespace ferry::server {

// Counts a server's open connections, in all and per peer IP address, against
// server.limits.max_connections and max_connections_per_peer. Touched on accept and close only.
class ConnectionAdmission {
 public:
  void set_limits(size_t max_connections, size_t max_per_peer) {
    max_connections_ = max_connections;
    max_per_peer_ = max_per_peer;
  }

  // Counts a connection from `address` in, or says why it may not be: then nothing is counted.
  bool TryAdmit(const std::string& address, std::string* refusal);
  // Once for every admitted connection, when it closes.
  void Release(const std::string& address);

  size_t open() const;

 private:
  size_t max_connections_ = SIZE_MAX;
  size_t max_per_peer_ = SIZE_MAX;
  mutable Mutex mu_;
  size_t open_ FERRY_GUARDED_BY(mu_) = 0;
  std::unordered_map<std::string, size_t> by_address_ FERRY_GUARDED_BY(mu_);
};

}  // namespace ferry::server
