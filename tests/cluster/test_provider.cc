#include "test_provider.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace ferry::cluster {

TestProvider::TestProvider(ServerOptions options) {
  options.listen = "127.0.0.1:0";
  server_ = std::make_unique<Server>(options);
  Status added = server_->AddService(this);
  EXPECT_TRUE(added.ok()) << added;
  Status started = server_->Start();
  EXPECT_TRUE(started.ok()) << started;
  address_ = "127.0.0.1:" + std::to_string(server_->port());
}

TestProvider::~TestProvider() { Stop(); }

void TestProvider::Stop() { server_->Stop(); }

Status TestProvider::Echo(ServerContext& context, const demo::EchoRequest& request,
                          demo::EchoResponse* response) {
  echo_calls_.fetch_add(1);
  if (Status status = Misbehave(); !status.ok()) return status;
  return impl_.Echo(context, request, response);
}

Status TestProvider::Delay(ServerContext& context, const demo::DelayRequest& request,
                           demo::EchoResponse* response) {
  delay_calls_.fetch_add(1);
  // In slices, so that a cancel from the caller frees the thread early.
  const uint32_t extra = extra_sleep_ms.load();
  for (uint32_t slept = 0; slept < extra && !context.cancelled(); slept += 5) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (Status status = Misbehave(); !status.ok()) return status;
  return impl_.Delay(context, request, response);
}

Status TestProvider::Misbehave() const {
  const uint32_t code = fail_code.load();
  if (code == 0) return Status::Ok();
  return Status(static_cast<StatusCode>(code), "told to fail by the test");
}

}  // namespace ferry::cluster
