#include "recording_filters.h"

#include <memory>
#include <mutex>

#include "ferry/codec/extension_registry.h"
#include "ferry/framework/filter.h"
#include "filter_config.h"

namespace ferry::plugins_test {
namespace {

struct Recording {
  std::mutex mu;
  std::vector<std::string> events;
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
class Recorder {
 public:
  Status Configure(const std::string& yaml) {
    plugins::FilterConfig config(yaml);
    config.String("tag", &tag_);
    std::string reject = "false";
    config.String("reject", &reject);
    reject_ = reject == "true";
    std::string observes_done = "true";
    config.String("observes_done", &observes_done);
    observes_done_ = observes_done == "true";
    return config.Finish();
  }
  bool observes_done() const { return observes_done_; }
  Status OnCall(const char* side) {
    Record(std::string(side) + " " + tag_ + " call");
    if (reject_) return Status(StatusCode::PERMISSION_DENIED, "rejected by " + tag_);
    return Status::Ok();
  }
  void OnDone(const char* side, const Status& status) {
    Record(std::string(side) + " " + tag_ + " done " + std::string(StatusCodeName(status.code())));
  }

 private:
  std::string tag_;
  bool reject_ = false;
  bool observes_done_ = true;
};

class RecordingClientFilter final : public ClientFilter {
 public:
  Status Configure(const std::string& yaml) override { return recorder_.Configure(yaml); }
  Status OnCall(ClientCall&) override { return recorder_.OnCall("client"); }
  void OnDone(const ClientCall&, const Status& status, std::chrono::nanoseconds) override {
    recorder_.OnDone("client", status);
  }
  bool ObservesDone() const override { return recorder_.observes_done(); }

 private:
  Recorder recorder_;
};

class RecordingServerFilter final : public ServerFilter {
 public:
  Status Configure(const std::string& yaml) override { return recorder_.Configure(yaml); }
  Status OnCall(ServerCall&) override { return recorder_.OnCall("server"); }
  void OnDone(const ServerCall&, const Status& status, std::chrono::nanoseconds) override {
    recorder_.OnDone("server", status);
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

void ClearRecordedEvents() {
  Recording& recording = TheRecording();
  std::lock_guard lock(recording.mu);
  recording.events.clear();
}

}  // namespace ferry::plugins_test
