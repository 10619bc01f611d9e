#pragma once

#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include <google/protobuf/message.h>

#include "ferry/framework/channel.h"

namespace ferry::testing {

// A Channel with no network: records each call and answers it from a scripted reply, either
// inline (as a real channel does for calls failing before send) or when the test says so,
// possibly from another thread than the caller's.
class FakeChannel final : public Channel {
 public:
  struct RecordedCall {
    const MethodSpec* method;
    std::unique_ptr<google::protobuf::Message> request;
    CallOptions options;
  };

  // Until the next SetReply, calls complete with `status`, the response copied from `response`.
  void SetReply(Status status, const google::protobuf::Message* response) {
    std::lock_guard lock(mutex_);
    reply_status_ = std::move(status);
    reply_response_ = response;
  }
  // Holds completions back until CompleteHeldCalls().
  void HoldCompletions() {
    std::lock_guard lock(mutex_);
    hold_ = true;
  }

  void CompleteHeldCalls() {
    std::vector<Pending> pending;
    {
      std::lock_guard lock(mutex_);
      pending.swap(pending_);
    }
    for (Pending& call : pending) Complete(call);
  }

  size_t calls_seen() const {
    std::lock_guard lock(mutex_);
    return calls_.size();
  }
  // Only while no call is being made.
  const std::vector<RecordedCall>& calls() const { return calls_; }

  void CallMethod(const MethodSpec& method, const google::protobuf::Message& request,
                  google::protobuf::Message* response, const CallOptions& options,
                  CallDone done) override {
    std::unique_ptr<google::protobuf::Message> copy(request.New());
    copy->CopyFrom(request);
    std::unique_lock lock(mutex_);
    calls_.push_back({&method, std::move(copy), options});
    Pending call{response, std::move(done), reply_status_, reply_response_};
    if (hold_) {
      pending_.push_back(std::move(call));
      return;
    }
    lock.unlock();
    Complete(call);
  }

 private:
  struct Pending {
    google::protobuf::Message* response;
    CallDone done;
    Status status;
    const google::protobuf::Message* reply;
  };

  static void Complete(Pending& call) {
    if (call.status.ok() && call.reply != nullptr) call.response->CopyFrom(*call.reply);
    call.done(call.status);
  }

  mutable std::mutex mutex_;
  Status reply_status_;
  const google::protobuf::Message* reply_response_ = nullptr;
  bool hold_ = false;
  std::vector<RecordedCall> calls_;
  std::vector<Pending> pending_;
};

}  // namespace ferry::testing
