#include "server/connection_admission.h"

namespace ferry::server {

bool ConnectionAdmission::TryAdmit(const std::string& address, std::string* refusal) {
  MutexLock lock(mu_);
  if (open_ >= max_connections_) {
    *refusal = std::to_string(open_) + " connections open (server.limits.max_connections)";
    return false;
  }
  size_t& from_address = by_address_[address];
  if (from_address >= max_per_peer_) {
    *refusal = std::to_string(from_address) + " connections open from " + address +
               " (server.limits.max_connections_per_peer)";
    return false;
  }
  ++from_address;
  ++open_;
  return true;
}

void ConnectionAdmission::Release(const std::string& address) {
  MutexLock lock(mu_);
  --open_;
  const auto it = by_address_.find(address);
  if (it != by_address_.end() && --it->second == 0) by_address_.erase(it);
}

size_t ConnectionAdmission::open() const {
  MutexLock lock(mu_);
  return open_;
}

}  // namespace ferry::server
