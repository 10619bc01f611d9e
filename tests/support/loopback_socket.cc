#include "loopback_socket.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace ferry::test {
namespace {

// An interrupted connect goes on in the background: its outcome is SO_ERROR once writable.
bool FinishInterruptedConnect(int fd) {
  pollfd writable{.fd = fd, .events = POLLOUT, .revents = 0};
  int ready;
  do {
    ready = ::poll(&writable, 1, -1);
  } while (ready < 0 && errno == EINTR);
  if (ready < 0) return false;
  int error = 0;
  socklen_t size = sizeof(error);
  if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) != 0) return false;
  errno = error;
  return error == 0;
}

}  // namespace

int ConnectLoopback(uint16_t port) { return ConnectLoopbackFrom(port, nullptr); }

int ConnectLoopbackFrom(uint16_t port, const char* from) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  if (from != nullptr) {
    sockaddr_in source{};
    source.sin_family = AF_INET;
    if (::inet_pton(AF_INET, from, &source.sin_addr) != 1 ||
        ::bind(fd, reinterpret_cast<sockaddr*>(&source), sizeof(source)) != 0) {
      const int error = errno;
      ::close(fd);
      errno = error;
      return -1;
    }
  }
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 &&
      !(errno == EINTR && FinishInterruptedConnect(fd))) {
    const int error = errno;
    ::close(fd);
    errno = error;
    return -1;
  }
  return fd;
}

}  // namespace ferry::test
