#pragma once

#include <string>
#include <vector>

namespace ferry::cluster {

// "127.0.0.1:<port>" where nothing listens: connecting is refused at once.
std::string DeadAddress();

// A loopback address whose connects never complete: its listener's accept queue is kept full,
// so the kernel drops new connection requests and a client's connect runs into its own timeout.
class BlackHole {
 public:
  BlackHole();
  ~BlackHole();
  BlackHole(const BlackHole&) = delete;
  BlackHole& operator=(const BlackHole&) = delete;

  const std::string& address() const { return address_; }

 private:
  int listener_ = -1;
  std::vector<int> fillers_;
  std::string address_;
};

}  // namespace ferry::cluster
