#include "common/provider_main.h"
#include "service/echo_service.h"

// build/bin/echo-server --config demo-services/echo/config/echo-server.yaml [--port N]
int main(int argc, char** argv) {
  ferry::demo::EchoServiceImpl echo;
  ferry::Service* const services[] = {&echo};
  return ferry::demo::RunProvider("echo-server", argc, argv, services);
}
