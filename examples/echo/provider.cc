#include "ferry/framework/app.h"
#include "greeter.ferry.h"

class GreeterImpl final : public example::GreeterBase {
 public:
  ferry::Status SayHello(ferry::ServerContext&, const example::HelloRequest& request,
                         example::HelloReply* reply) override {
    reply->set_message("hello, " + request.name());
    return ferry::Status::Ok();
  }
};

// greeter-provider --config greeter.yaml [--port N]
int main(int argc, char** argv) {
  ferry::App app("greeter", argc, argv);
  GreeterImpl impl;
  app.AddService(&impl);
  return app.Run();
}
