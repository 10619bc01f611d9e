#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "echo.ferry.h"
#include "ferry/framework/channel.h"
#include "ferry/framework/server.h"
#include "service/echo_service.h"

namespace ferry::e2e {

// An in-process echo server on an ephemeral loopback port, plus channels to it.
class EchoFixture : public ::testing::Test {
 protected:
  void StartServer(ServerOptions options = {});
  std::shared_ptr<Channel> NewClientChannel(ClientOptions options = {});
  demo::EchoServiceProxy NewProxy(ClientOptions options = {}) {
    return demo::EchoServiceProxy(NewClientChannel(std::move(options)));
  }
  void TearDown() override;

  demo::EchoServiceImpl service_;
  std::unique_ptr<Server> server_;
};

demo::EchoRequest MakeEcho(std::string payload);
demo::DelayRequest MakeDelay(uint32_t sleep_ms, std::string payload = "slow");

}  // namespace ferry::e2e
