#pragma once

#include <spdlog/logger.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "access_log_writer.h"
#include "ferry/codec/status.h"

namespace ferry::accesslog {

// Where one accesslog filter writes its lines: its own spdlog logger, not registered with
// spdlog and so independent of the host's loggers and levels. Lines are formatted on the
// calling thread and written, then flushed, by the shared AccessLogWriter.
class AccessLog {
 public:
  // `file` empty: stderr. FAILED_PRECONDITION when the file cannot be opened for appending.
  static Status Open(const std::string& file, std::unique_ptr<AccessLog>* out);

  // A call's place in its trace; "-" stands for an id that is empty.
  struct Trace {
    std::string_view trace_id;
    std::string_view span_id;
    std::string_view parent_span_id;
  };

  // "server trace=4f2a… span=00f0… parent=- call=ferry.demo.EchoService/Echo peer=1.2.3.4:5
  // status=OK latency_us=57", followed by ` error="…"` when the status is not OK. Every field is
  // escaped as AppendLogEscaped escapes it (spaces too, but in the error), so one call is always
  // one line of these fields, whatever a peer put in them.
  void Write(std::string_view side, const Trace& trace, std::string_view service,
             std::string_view method, std::string_view peer, const Status& status,
             std::chrono::nanoseconds latency);

 private:
  AccessLog(std::shared_ptr<AccessLogWriter> writer, std::shared_ptr<spdlog::logger> logger);

  const std::shared_ptr<AccessLogWriter> writer_;
  const std::shared_ptr<spdlog::logger> logger_;
};

}  // namespace ferry::accesslog
