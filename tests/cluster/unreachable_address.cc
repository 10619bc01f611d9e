#include "unreachable_address.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace ferry::cluster {
namespace {

sockaddr_in Loopback(uint16_t port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return address;
}

uint16_t BoundPort(int fd) {
  sockaddr_in bound{};
  socklen_t length = sizeof bound;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length);
  return ntohs(bound.sin_port);
}

// A non-blocking connect to `port`; true if it completed within `wait_ms`.
bool ConnectNonBlocking(uint16_t port, int wait_ms, int* fd_out) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  const sockaddr_in address = Loopback(port);
  *fd_out = fd;
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0) return true;
  pollfd writable{.fd = fd, .events = POLLOUT, .revents = 0};
  return ::poll(&writable, 1, wait_ms) == 1;
}

}  // namespace

std::string DeadAddress() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  const sockaddr_in address = Loopback(0);
  ::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address);
  const uint16_t port = BoundPort(fd);
  ::close(fd);
  return "127.0.0.1:" + std::to_string(port);
}

BlackHole::BlackHole() {
  listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
  const sockaddr_in address = Loopback(0);
  EXPECT_EQ(::bind(listener_, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
  EXPECT_EQ(::listen(listener_, 0), 0);
  const uint16_t port = BoundPort(listener_);
  address_ = "127.0.0.1:" + std::to_string(port);
  // Connect (and never accept) until a connect no longer completes: the queue is full.
  for (int i = 0; i < 8; ++i) {
    int fd = -1;
    const bool completed = ConnectNonBlocking(port, 100, &fd);
    fillers_.push_back(fd);
    if (!completed) return;
  }
  ADD_FAILURE() << "the accept queue of " << address_ << " never filled up";
}

BlackHole::~BlackHole() {
  for (int fd : fillers_) ::close(fd);
  ::close(listener_);
}

StalledPeer::StalledPeer() {
  listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
  // Inherited by the connections the kernel completes for the listener.
  const int receive_buffer = 16 << 10;
  EXPECT_EQ(::setsockopt(listener_, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer),
            0);
  const sockaddr_in address = Loopback(0);
  EXPECT_EQ(::bind(listener_, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
  EXPECT_EQ(::listen(listener_, 16), 0);
  address_ = "127.0.0.1:" + std::to_string(BoundPort(listener_));
}

StalledPeer::~StalledPeer() { ::close(listener_); }

}  // namespace ferry::cluster
