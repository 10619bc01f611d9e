#pragma once

#include <google/protobuf/message.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>

#include "ferry/codec/frame_decoder.h"
#include "ferry/codec/status.h"
#include "ferry/framework/server_context.h"
#include "server/auth_token_table.h"
#include "server/business_pool.h"
#include "server/method_table.h"

namespace ferry::wire {
class RpcMeta;
}

namespace ferry::server {

class ServerConnection;

// One request being served: its messages, its context and where its answer goes. Lives on the
// IO thread's stack for inline methods, on the heap while queued for or running on the pool.
class ServerCall final : public BusinessPool::Task {
 public:
  // Reusable request and response messages of one method, lent to inline calls so that a
  // connection calling the same method again allocates no new messages.
  struct Messages {
    const MethodTable::Entry* method = nullptr;
    std::unique_ptr<google::protobuf::Message> request;
    std::unique_ptr<google::protobuf::Message> response;
  };

  // A call that owns new messages, for the pool.
  ServerCall(std::shared_ptr<ServerConnection> connection, const MethodTable::Entry& method,
             const codec::FrameHeader& header);
  // A call that borrows `*messages` (replaced when they belong to another method) and
  // `*context` (refilled), for inline methods.
  ServerCall(std::shared_ptr<ServerConnection> connection, const MethodTable::Entry& method,
             const codec::FrameHeader& header, Messages* messages, ServerContext* context);
  ~ServerCall() override;  // leaves the connection's in-flight list
  ServerCall(const ServerCall&) = delete;
  ServerCall& operator=(const ServerCall&) = delete;

  // Decodes the body and fills the context. Swaps strings with `meta`, so that neither loses
  // its capacity. `token`: the request's indexed auth token, if it has one
  // (AuthTokenTable::Resolve). On failure the status is what the caller should be answered.
  Status Prepare(const codec::Frame& frame, wire::RpcMeta* meta, const AuthTokenTable::Token* token,
                 ServerContext::Clock::time_point received, size_t max_body_bytes);

  // Joins the connection's in-flight list, where Stop() waits for it and a cancel frame finds
  // it. Before handing the call to the pool, which may finish it at once.
  void Track();

  // On a pool worker.
  void Run() override { Complete(/*on_io_thread=*/false); }
  // On the connection's IO thread, for inline methods.
  void RunInline() { Complete(/*on_io_thread=*/true); }

  uint64_t request_id() const { return request_id_; }
  ServerContext& context() { return *context_; }

  // The connection's in-flight list, guarded by its mutex.
  ServerCall* prev_in_flight = nullptr;
  ServerCall* next_in_flight = nullptr;

 private:
  void Complete(bool on_io_thread);
  Status Execute();  // the server filters around Invoke()
  Status Invoke();

  const std::shared_ptr<ServerConnection> connection_;
  const MethodTable::Entry& method_;
  const uint64_t request_id_;
  const uint8_t serializer_;
  const bool one_way_;
  bool tracked_ = false;
  Messages owned_;  // empty when borrowed
  google::protobuf::Message* const request_;
  google::protobuf::Message* const response_;
  std::optional<ServerContext> owned_context_;  // empty when borrowed
  ServerContext* const context_;
};

}  // namespace ferry::server
