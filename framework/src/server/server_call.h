#pragma once

#include <google/protobuf/message.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>

#include "ferry/codec/frame_decoder.h"
#include "ferry/codec/status.h"
#include "ferry/framework/http.h"
#include "ferry/framework/server_context.h"
#include "ferry/framework/service.h"
#include "filter/server_filter_chain.h"
#include "server/buffer_budget.h"
#include "server/business_pool.h"
#include "server/in_flight_calls.h"
#include "server/method_table.h"

namespace ferry::wire {
class RpcMeta;
}

namespace ferry::server {

class ServerConnection;

// One request being served: its messages, its context, its pass through the server filters and
// where its answer goes. A call for the business pool lives on the heap and owns itself once it
// runs. A connection keeps one more for its inline methods and reuses it, messages and context
// included, from call to call; if a handler completes such a call later than it returns (an
// asynchronous handler), the call leaves the connection and owns itself until it completes.
//
// A call completes exactly once, through ServerDone or because it was refused before its
// handler ran. A completion on the thread still running the handler costs no atomic operation:
// only one from another thread meets the invoking thread through `handoff_`.
class ServerCall final : public BusinessPool::Task,
                         public ServerDone::Target,
                         public InFlightEntry {
 public:
  // A call for the pool.
  ServerCall(std::shared_ptr<ServerConnection> connection, const MethodTable::Entry& method,
             const codec::FrameHeader& header);
  // A call of the JSON gateway: HTTP request `http_exchange` of the connection.
  ServerCall(std::shared_ptr<ServerConnection> connection, const MethodTable::Entry& method,
             uint64_t http_exchange);
  // A connection's reusable inline call, empty until Reset().
  ServerCall() = default;
  ~ServerCall() override;  // leaves the connection's in-flight list
  ServerCall(const ServerCall&) = delete;
  ServerCall& operator=(const ServerCall&) = delete;

  // Makes the reusable call the call of `header`'s request; its messages are kept when the
  // method is the one it served last.
  void Reset(std::shared_ptr<ServerConnection> connection, const MethodTable::Entry& method,
             const codec::FrameHeader& header);
  // The same for the gateway's call of HTTP request `http_exchange`.
  void ResetHttp(std::shared_ptr<ServerConnection> connection, const MethodTable::Entry& method,
                 uint64_t http_exchange);

  // Fills the context from the meta and runs the filters' OnAdmit; the body is decoded only
  // when the call starts (after the pool took it), at most `max_body_bytes` once decompressed.
  // Swaps strings with `meta` and the frame's body, so that none loses its capacity. On
  // failure the status is what the caller should be answered, unless a filter refused the
  // request: then the call answered it through the filters already, and `*answered` is true.
  Status Prepare(codec::Frame* frame, wire::RpcMeta* meta,
                 ServerContext::Clock::time_point received, size_t max_body_bytes, bool* answered);

  // The same from an HTTP request: its headers for what the binary meta carries (docs/http.md),
  // INVALID_ARGUMENT naming the header that is wrong; its JSON body, decoded when the call
  // starts.
  Status PrepareHttp(const HttpRequest& request, ServerContext::Clock::time_point received,
                     bool* answered);

  // Lets go of the connection of a reusable call whose request was refused before it ran.
  void Abandon() {
    ReleaseBody();
    connection_.reset();
  }

  // Joins the connection's in-flight list, where Stop() waits for it and a cancel frame finds
  // it. Before handing the call to the pool, which may finish it at once.
  void Track();

  // On a pool worker. The call owns itself from here on.
  void Run() override;
  // On the connection's IO thread, for inline methods. True when the call completed before its
  // handler returned, so the connection may reuse it; false when it went on asynchronously and
  // now owns itself (the connection lets go of it).
  bool RunInline();

  uint64_t request_id() const { return request_id_; }
  AdmissionContext& context() { return context_; }

  // ServerDone::Target: the call's one completion; leaves the filters, answers, and lets go of
  // the call if nobody else holds it.
  void Complete(const Status& status) override;
  bool TakeOverAfterThrow() override;

 private:
  // The request's body as it came, until StartHandler decodes it: after the admission filters
  // and the pool, so that a refused or queued request costs no decompression or parsing.
  enum class Body : uint8_t { kDecoded, kFrame, kJson };
  Body body_kind_ = Body::kDecoded;
  codec::FrameHeader body_header_;
  std::string body_;
  BufferBudget* body_budget_ = nullptr;  // what charged_body_ is charged to
  size_t charged_body_ = 0;
  size_t max_body_bytes_ = 0;
  size_t max_response_bytes_ = codec::kDefaultMaxFrameBytes;  // RpcMeta.max_response_bytes
  RequestFraming framing_;                                    // for the filters' OnAdmit

  enum Handoff : uint8_t { kRunning, kHandlerReturned, kCompleted };

  // Runs the filters and the handler. True when the call completed: a pool call is then gone,
  // an inline one the connection's to reuse. False when it completes later and lets go of
  // itself then: it may be gone already.
  bool Invoke();
  // Prepare() and PrepareHttp() before counting the call (docs/metrics.md).
  Status Fill(codec::Frame* frame, wire::RpcMeta* meta, ServerContext::Clock::time_point received,
              size_t max_body_bytes);
  Status FillHttp(const HttpRequest& request, ServerContext::Clock::time_point received);
  // Counts a prepared call in flight until its answer, or a refused one at once.
  Status Counted(Status prepared);
  // Counted(filled), then the filters' OnAdmit; a refusal is answered here (*answered).
  Status Admitted(Status filled, bool* answered);
  void StartHandler();
  // The request message from body_, once: INVALID_ARGUMENT for a body that is not one.
  Status DecodeBody();
  // body_ counts against server.limits.max_buffered_bytes from when the call takes it until it
  // is decoded: a queued call holds it all that time.
  void ChargeBody();
  void ReleaseBody();
  void Answer(const Status& status);
  void NoteIfSlow(const Status& status, ServerContext::Clock::time_point now);
  // After the invoking thread returned from the handler: true when the call already completed.
  bool HandlerReturned();
  void Release();

  std::shared_ptr<ServerConnection> connection_;
  const MethodTable::Entry* method_ = nullptr;
  uint64_t request_id_ = 0;
  uint8_t serializer_ = 0;
  bool one_way_ = false;
  bool http_ = false;  // answered as HTTP, request_id_ being the exchange
  // An inline call the connection still holds; false for pool calls and detached inline ones.
  bool held_by_connection_ = false;
  bool tracked_ = false;
  bool counted_ = false;  // in flight in its method's metrics
  // Set on the invoking thread when the call completed on it before the handler returned.
  bool completed_while_invoking_ = false;
  // A ServerDone dropped while an exception unwound the handler: the invoker answers instead.
  bool dropped_by_throw_ = false;
  std::atomic<uint8_t> handoff_{kRunning};
  const MethodTable::Entry* messages_method_ = nullptr;  // what request_/response_ are for
  std::unique_ptr<google::protobuf::Message> request_;
  std::unique_ptr<google::protobuf::Message> response_;
  AdmissionContext context_;
  ServerContext::Clock::time_point received_{};  // when the request was read
  filter::ServerFilterPass filters_;
};

}  // namespace ferry::server
