// echo-with-peer --config FILE [--port N]: the echo service, in an App that also has a client
// named "peer" (YAML clients.peer). The status page lists only the clients an App has asked
// for, and echo-server asks for none; this one asks before it serves, and makes one call
// through it so that a peer it cannot reach fails the start instead of the page's assertions.
#include "echo.ferry.h"
#include "ferry/framework/app.h"
#include "service/echo_service.h"

int main(int argc, char** argv) {
  ferry::App app("echo-with-peer", argc, argv);
  ferry::demo::EchoServiceImpl echo;
  app.AddService(&echo);
  auto peer = app.Client<ferry::demo::EchoServiceProxy>("peer");
  ferry::demo::EchoRequest request;
  request.set_payload("hello, peer");
  ferry::Result<ferry::demo::EchoResponse> reply = peer.Echo(request);
  if (!reply.ok()) return app.Fail(reply.status());
  return app.Run();
}
