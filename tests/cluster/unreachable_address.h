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

// A loopback address that takes connections and never reads from them: its listener never
// accepts, the kernel completes the connections, and what a client writes fills the socket
// buffers (kept small) and then stays in the client's write queue.
class StalledPeer {
 public:
  StalledPeer();
  ~StalledPeer();
  StalledPeer(const StalledPeer&) = delete;
  StalledPeer& operator=(const StalledPeer&) = delete;

  const std::string& address() const { return address_; }

 private:
  int listener_ = -1;
  std::string address_;
};

}  // namespace ferry::cluster
