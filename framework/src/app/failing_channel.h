#pragma once

#include "ferry/framework/channel.h"

namespace ferry::app {

// Stands in for a client the app could not build: every call fails with the reason, so that a
// main() asking for it reads straight through and the app refuses to start instead.
class FailingChannel final : public Channel {
 public:
  explicit FailingChannel(Status reason) : reason_(std::move(reason)) {}

  void CallMethod(const MethodSpec&, const google::protobuf::Message&, google::protobuf::Message*,
                  const CallOptions&, CallDone done) override {
    done(reason_);
  }

 private:
  const Status reason_;
};

}  // namespace ferry::app
