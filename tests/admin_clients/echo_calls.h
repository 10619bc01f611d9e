#pragma once

#include <cstdint>
#include <string>

#include "echo.ferry.h"

namespace ferry::admin_clients_test {

// The port of a "host:port" address.
uint16_t PortOf(const std::string& address);

// `binary` Echo calls through `proxy` and `gateway` POSTs of Echo to the JSON gateway on `port`,
// every answer checked (a fatal failure stops at the first wrong one): the calls a test then
// expects a scraper or the status page to count.
void MakeEchoCalls(demo::EchoServiceProxy& proxy, uint16_t port, int binary, int gateway);

}  // namespace ferry::admin_clients_test
