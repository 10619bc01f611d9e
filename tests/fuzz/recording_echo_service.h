#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "echo.ferry.h"
#include "ferry/framework/call_options.h"

namespace ferry::fuzz {

// What a handler saw of its call: the fields of ServerContext the request's meta (or the HTTP
// request's headers) filled in.
struct SeenCall {
  std::string method;
  std::chrono::steady_clock::time_point deadline;
  std::string trace_id;
  std::string span_id;
  std::string parent_span_id;
  bool sampled = false;
  uint64_t request_id = 0;
  std::string auth_token;
  Attachments attachments;
  std::string payload;
};

// The echo service's interface, answering at once (Delay neither sleeps nor fails) and keeping
// what its last call saw, for the fuzzer to compare with what it sent.
class RecordingEchoService final : public demo::EchoServiceBase {
 public:
  Status Echo(ServerContext& context, const demo::EchoRequest& request,
              demo::EchoResponse* response) override;
  Status Delay(ServerContext& context, const demo::DelayRequest& request,
               demo::EchoResponse* response) override;

  // The call seen since the last Take(), if any.
  std::optional<SeenCall> Take();

 private:
  void Record(const ServerContext& context, const std::string& payload);

  std::mutex mutex_;
  std::optional<SeenCall> seen_;
};

}  // namespace ferry::fuzz
