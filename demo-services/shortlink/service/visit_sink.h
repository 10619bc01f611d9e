#pragma once

#include <cstdint>
#include <string>

namespace ferry::shortlink {

// One redirect, as the statistics will see it.
struct Visit {
  std::string code;
  int64_t at_ms = 0;
  // The visitor's IP address: behind a trusted proxy, the one it forwarded for
  // (HttpRequest::client_address()).
  std::string client_address;
  std::string user_agent;
  std::string referrer;
};

// Where the redirect path hands its visits, without waiting (VisitRecorder). Record must never
// block.
class VisitSink {
 public:
  virtual ~VisitSink() = default;
  virtual void Record(Visit visit) = 0;
};

}  // namespace ferry::shortlink
