#pragma once

#include "echo.ferry.h"

namespace ferry::demo {

// The echo provider: Echo mirrors the payload; Delay misbehaves on request so that failure
// handling and long tails can be exercised end to end.
class EchoServiceImpl final : public EchoServiceBase {
 public:
  Status Echo(ServerContext& context, const EchoRequest& request, EchoResponse* response) override;
  // Sleeps sleep_ms (CANCELLED if the caller gives up meanwhile), then fails with fail_code or
  // throws if asked, otherwise echoes the payload.
  Status Delay(ServerContext& context, const DelayRequest& request,
               EchoResponse* response) override;
};

}  // namespace ferry::demo
