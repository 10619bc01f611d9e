#include "echo_fixture.h"

namespace ferry::e2e {

void EchoFixture::StartServer(ServerOptions options) {
  options.listen = "127.0.0.1:0";
  server_ = std::make_unique<Server>(std::move(options));
  ASSERT_TRUE(server_->AddService(&service_).ok());
  Status s = server_->Start();
  ASSERT_TRUE(s.ok()) << s;
}

std::shared_ptr<Channel> EchoFixture::NewClientChannel(ClientOptions options) {
  options.target = "127.0.0.1:" + std::to_string(server_->port());
  std::shared_ptr<Channel> channel;
  Status s = NewChannel(options, &channel);
  EXPECT_TRUE(s.ok()) << s;
  return channel;
}

void EchoFixture::TearDown() {
  if (server_) server_->Stop();
}

demo::EchoRequest MakeEcho(std::string payload) {
  demo::EchoRequest request;
  request.set_payload(std::move(payload));
  return request;
}

demo::DelayRequest MakeDelay(uint32_t sleep_ms, std::string payload) {
  demo::DelayRequest request;
  request.set_sleep_ms(sleep_ms);
  request.set_payload(std::move(payload));
  return request;
}

}  // namespace ferry::e2e
