// The gRPC peer's server: the async completion-queue API with one queue per thread, the way a
// tuned gRPC C++ service is written. Call objects are recycled rather than allocated per call.
#include <grpcpp/alarm.h>
#include <grpcpp/grpcpp.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "echo_bench.grpc.pb.h"
#include "ferry/bench/flag_parser.h"
#include "ferry/bench/load_options.h"
#include "ferry/bench/server_options.h"

namespace ferry::bench {
namespace {

using grpc_bench::EchoBench;
using grpc_bench::EchoBenchRequest;
using grpc_bench::EchoBenchResponse;

// Set before shutdown starts, so that no handler adds work to a queue being shut down.
std::atomic<bool> shutting_down{false};

// One server-side call, from accepting it to finishing it; reused for call after call.
class ServerCall {
 public:
  enum class State { kAccepting, kDelaying, kFinishing };

  ServerCall(EchoBench::AsyncService* service, grpc::ServerCompletionQueue* cq)
      : service_(service), cq_(cq) {}

  State state() const { return state_; }

  void Accept() {
    state_ = State::kAccepting;
    // Contexts and responders are single-use in gRPC; re-emplacing keeps this object's memory.
    responder_.reset();
    context_.emplace();
    responder_.emplace(&*context_);
    service_->RequestEcho(&*context_, &request_, &*responder_, cq_, cq_, this);
  }

  // The call has arrived: answer now, or after its requested delay.
  void Serve() {
    if (request_.sleep_ms() == 0) return Finish();
    state_ = State::kDelaying;
    alarm_.emplace();
    alarm_->Set(cq_,
                std::chrono::system_clock::now() + std::chrono::milliseconds(request_.sleep_ms()),
                this);
  }

  void Finish() {
    state_ = State::kFinishing;
    response_.mutable_payload()->swap(*request_.mutable_payload());
    responder_->Finish(response_, grpc::Status::OK, this);
  }

 private:
  EchoBench::AsyncService* service_;
  grpc::ServerCompletionQueue* cq_;
  State state_ = State::kAccepting;
  std::optional<grpc::ServerContext> context_;
  std::optional<grpc::ServerAsyncResponseWriter<EchoBenchResponse>> responder_;
  std::optional<grpc::Alarm> alarm_;
  EchoBenchRequest request_;
  EchoBenchResponse response_;
};

// One completion queue and the thread polling it; its calls are touched by that thread only.
class QueueWorker {
 public:
  QueueWorker(EchoBench::AsyncService* service, std::unique_ptr<grpc::ServerCompletionQueue> cq)
      : service_(service), cq_(std::move(cq)) {}

  void Start() {
    // A few calls waiting in advance let a burst of new calls be matched without a round trip
    // through this thread.
    for (int i = 0; i < 16; ++i) AcceptOne();
    thread_ = std::thread([this] { Poll(); });
  }

  void Shutdown() {
    cq_->Shutdown();
    thread_.join();
  }

 private:
  void AcceptOne() {
    if (idle_.empty()) {
      calls_.push_back(std::make_unique<ServerCall>(service_, cq_.get()));
      idle_.push_back(calls_.back().get());
    }
    ServerCall* call = idle_.back();
    idle_.pop_back();
    call->Accept();
  }

  void Poll() {
    void* tag = nullptr;
    bool ok = false;
    while (cq_->Next(&tag, &ok)) {
      auto* call = static_cast<ServerCall*>(tag);
      const bool go_on = ok && !shutting_down.load(std::memory_order_relaxed);
      switch (call->state()) {
        case ServerCall::State::kAccepting:
          if (!go_on) break;
          AcceptOne();
          call->Serve();
          break;
        case ServerCall::State::kDelaying:
          if (go_on) call->Finish();
          break;
        case ServerCall::State::kFinishing:
          idle_.push_back(call);
          break;
      }
    }
  }

  EchoBench::AsyncService* service_;
  std::unique_ptr<grpc::ServerCompletionQueue> cq_;
  std::vector<std::unique_ptr<ServerCall>> calls_;
  std::vector<ServerCall*> idle_;
  std::thread thread_;
};

int Main(int argc, char** argv) {
  ServerOptions options;
  FlagParser flags("grpc-echo-server");
  AddServerFlags(flags, &options);
  if (auto exit_code = flags.ParseOrExit(argc, argv)) return *exit_code;

  // Every thread, gRPC's included, inherits this mask; the main thread alone takes the signals.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  EchoBench::AsyncService service;
  grpc::ServerBuilder builder;
  const bool ipv6 = options.bind.find(':') != std::string::npos;
  const std::string address =
      (ipv6 ? "[" + options.bind + "]" : options.bind) + ":" + std::to_string(options.port);
  int port = 0;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  builder.SetMaxReceiveMessageSize(static_cast<int>(kMaxPayloadBytes) + 1024);
  std::vector<std::unique_ptr<QueueWorker>> workers;
  for (uint32_t i = 0; i < options.threads; ++i) {
    workers.push_back(std::make_unique<QueueWorker>(&service, builder.AddCompletionQueue()));
  }
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    std::cerr << "grpc-echo-server: cannot listen on " << address << "\n";
    return 1;
  }
  for (auto& worker : workers) worker->Start();
  std::cout << "grpc-echo-server listening on " << options.bind << ":" << port
            << " threads=" << options.threads << std::endl;

  int signal = 0;
  sigwait(&signals, &signal);
  shutting_down = true;
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  for (auto& worker : workers) worker->Shutdown();
  return 0;
}

}  // namespace
}  // namespace ferry::bench

int main(int argc, char** argv) { return ferry::bench::Main(argc, argv); }
