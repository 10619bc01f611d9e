#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "echo.ferry.h"
#include "ferry/framework/server.h"
#include "service/echo_service.h"

namespace ferry::cluster {

// An echo provider on an ephemeral loopback port that counts what it executes and can be told
// to misbehave, on top of what a Delay request itself asks for.
class TestProvider final : public demo::EchoServiceBase {
 public:
  explicit TestProvider(ServerOptions options = {});
  ~TestProvider() override;

  const std::string& address() const { return address_; }
  // Graceful stop: the port is closed afterwards.
  void Stop();

  // Both methods answer with this code instead (0: answer normally).
  std::atomic<uint32_t> fail_code{0};
  // Delay sleeps this much longer (cancellable). Echo never sleeps: it runs on the server's IO
  // thread, where sleeping would stall every call on the connection.
  std::atomic<uint32_t> extra_sleep_ms{0};

  uint64_t echo_calls() const { return echo_calls_.load(); }
  uint64_t delay_calls() const { return delay_calls_.load(); }
  uint64_t calls() const { return echo_calls() + delay_calls(); }

  Status Echo(ServerContext& context, const demo::EchoRequest& request,
              demo::EchoResponse* response) override;
  Status Delay(ServerContext& context, const demo::DelayRequest& request,
               demo::EchoResponse* response) override;

 private:
  Status Misbehave() const;

  demo::EchoServiceImpl impl_;
  std::atomic<uint64_t> echo_calls_{0};
  std::atomic<uint64_t> delay_calls_{0};
  std::unique_ptr<Server> server_;
  std::string address_;
};

}  // namespace ferry::cluster
