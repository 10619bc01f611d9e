#pragma once

#include <cstdint>

namespace ferry::test {

// A blocking TCP socket connected to 127.0.0.1:`port`, or -1 with errno set. A signal during the
// connect (libFuzzer's timer, say) does not fail it: the connection it interrupted is waited for.
int ConnectLoopback(uint16_t port);
// The same from the IPv4 address `from` (any of 127.0.0.0/8 is this host's own): a client the
// server sees at another address than 127.0.0.1.
int ConnectLoopbackFrom(uint16_t port, const char* from);

}  // namespace ferry::test
