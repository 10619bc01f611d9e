// counting-provider: the echo service whose Delay (not idempotent) appends the call id of every
// call it runs to the file `service.executions`, so that a test can tell how often each ran.
#include <fstream>
#include <mutex>
#include <string>
#include <thread>

#include "echo.ferry.h"
#include "ferry/framework/app.h"

namespace {

class CountingEcho final : public ferry::demo::EchoServiceBase {
 public:
  explicit CountingEcho(const std::string& path) : executions_(path, std::ios::app) {}

  ferry::Status Delay(ferry::ServerContext& context, const ferry::demo::DelayRequest& request,
                      ferry::demo::EchoResponse* response) override {
    {
      std::lock_guard lock(mu_);
      executions_ << context.request_id() << '\n' << std::flush;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(request.sleep_ms()));
    response->set_payload(request.payload());
    return ferry::Status::Ok();
  }

 private:
  std::mutex mu_;
  std::ofstream executions_;
};

}  // namespace

int main(int argc, char** argv) {
  ferry::App app("counting-provider", argc, argv);
  std::string executions;
  app.ReadServiceConfig([&](ferry::config::ConfigReader& service) {
    service.String("executions", &executions);
    if (executions.empty()) service.Invalid("executions", "must name a file");
  });
  if (!app.ok()) return app.Fail(app.status());
  CountingEcho echo(executions);
  app.AddService(&echo);
  return app.Run();
}
