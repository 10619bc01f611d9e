#include "ferry/framework/app.h"
#include "service/echo_service.h"

// build/bin/echo-server --config demo-services/echo/config/echo-server.yaml [--port N]
int main(int argc, char** argv) {
  ferry::App app("echo-server", argc, argv);
  ferry::demo::EchoServiceImpl echo;
  app.AddService(&echo);
  return app.Run();
}
