#include "recording_filters.h"

#include <memory>
#include <mutex>
#include <stdexcept>

#include "ferry/codec/extension_registry.h"
#include "ferry/framework/filter.h"

namespace ferry::plugins_test {
namespace {

struct Recording {
  std::mutex mu;
  std::vector<std::string> events;
  std::vector<std::string> states;
};

Recording& TheRecording() {
  static Recording recording;
  return recording;
}

void Record(std::string event) {
  Recording& recording = TheRecording();
  std::lock_guard lock(recording.mu);
  recording.events.push_back(std::move(event));
}

// What the client and server recorders share: the tag, the rejection and the event names.
// Each keeps the method's name as its method state and a number as its call state, and records
// "<side> <tag> lost its state" should a call come without them.
class Recorder {
 public:
  void Configure(config::ConfigReader& config) {
    config.String("tag", &tag_);
    config.Bool("reject", &reject_);
    config.Bool("observes_done", &observes_done_);
    config.Bool("throw_on_call", &throw_on_call_);
    config.Bool("throw_on_done", &throw_on_done_);
  }
  bool observes_done() const { return observes_done_; }
  std::shared_ptr<void> NewMethodState(const char* side, const MethodSpec& method) {
    auto name = std::make_shared<std::string>(std::string(method.service) + "/" +
                                              std::string(method.method));
    Recording& recording = TheRecording();
    std::lock_guard lock(recording.mu);
    recording.states.push_back(std::string(side) + " " + tag_ + " " + *name);
    return name;
  }
  Status OnCall(const char* side, std::string_view method, FilterState& state) {
    Record(std::string(side) + " " + tag_ + " call");
    if (state.method_state == nullptr ||
        *static_cast<const std::string*>(state.method_state) != method) {
      Record(std::string(side) + " " + tag_ + " lost its method state");
    }
    if (throw_on_call_) throw std::runtime_error(tag_ + " threw in OnCall");
    if (observes_done_) state.call_state = new int(kCallMark);
    if (reject_) return Status(StatusCode::PERMISSION_DENIED, "rejected by " + tag_);
    return Status::Ok();
  }
  void OnDone(const char* side, const Status& status, const FilterState& state) {
    Record(std::string(side) + " " + tag_ + " done " + std::string(StatusCodeName(status.code())));
    const std::unique_ptr<int> mark(static_cast<int*>(state.call_state));
    if (observes_done_ && (mark == nullptr || *mark != kCallMark)) {
      Record(std::string(side) + " " + tag_ + " lost its call state");
    }
    if (throw_on_done_) throw std::runtime_error(tag_ + " threw in OnDone");
  }

 private:
  static constexpr int kCallMark = 42;
  std::string tag_;
  bool reject_ = false;
  bool observes_done_ = true;
  bool throw_on_call_ = false;
  bool throw_on_done_ = false;
};

std::string MethodOf(const MethodSpec& method) {
  return std::string(method.service) + "/" + std::string(method.method);
}

class RecordingClientFilter final : public ClientFilter {
 public:
  void Configure(config::ConfigReader& config) override { recorder_.Configure(config); }
  std::shared_ptr<void> NewMethodState(const MethodSpec& method) override {
    return recorder_.NewMethodState("client", method);
  }
  Status OnCall(ClientCall& call) override {
    return recorder_.OnCall("client", MethodOf(call.method), call.state);
  }
  void OnDone(const ClientCall& call, const Status& status, std::chrono::nanoseconds) override {
    recorder_.OnDone("client", status, call.state);
  }
  bool ObservesDone() const override { return recorder_.observes_done(); }

 private:
  Recorder recorder_;
};

class RecordingServerFilter final : public ServerFilter {
 public:
  void Configure(config::ConfigReader& config) override { recorder_.Configure(config); }
  std::shared_ptr<void> NewMethodState(const MethodSpec& method) override {
    return recorder_.NewMethodState("server", method);
  }
  Status OnCall(ServerCall& call) override {
    return recorder_.OnCall(
        "server", std::string(call.context.service()) + "/" + std::string(call.context.method()),
        call.state);
  }
  void OnDone(const ServerCall& call, const Status& status, std::chrono::nanoseconds) override {
    recorder_.OnDone("server", status, call.state);
  }
  bool ObservesDone() const override { return recorder_.observes_done(); }

 private:
  Recorder recorder_;
};

void RegisterRecordingFilters(ExtensionRegistry& registry) {
  registry.Register<ClientFilter>("test_recorder",
                                  [] { return std::make_shared<RecordingClientFilter>(); });
  registry.Register<ServerFilter>("test_recorder",
                                  [] { return std::make_shared<RecordingServerFilter>(); });
}

}  // namespace

FERRY_REGISTER_BUILTIN_EXTENSIONS(RegisterRecordingFilters)

std::vector<std::string> RecordedEvents() {
  Recording& recording = TheRecording();
  std::lock_guard lock(recording.mu);
  return recording.events;
}

std::vector<std::string> RecordedMethodStates() {
  Recording& recording = TheRecording();
  std::lock_guard lock(recording.mu);
  return recording.states;
}

void ClearRecordedEvents() {
  Recording& recording = TheRecording();
  std::lock_guard lock(recording.mu);
  recording.events.clear();
  recording.states.clear();
}

}  // namespace ferry::plugins_test
