#include <iostream>

#include "ferry/framework/app.h"
#include "greeter.ferry.h"

// greeter-client --config greeter.yaml [--registry static://host:port]: one call through the
// config's `clients.greeter`, an App that serves nothing.
int main(int argc, char** argv) {
  ferry::App app("greeter-client", argc, argv);
  auto greeter = app.Client<example::GreeterProxy>("greeter");
  example::HelloRequest request;
  request.set_name("ferry");
  ferry::Result<example::HelloReply> reply = greeter.SayHello(request);
  if (!reply.ok()) return app.Fail(reply.status());
  std::cout << reply->message() << std::endl;
  return 0;
}
