// The gRPC peer's load client: --conns channels, each its own TCP connection, with --depth async
// unary calls outstanding on each, completed by --threads completion-queue threads.
#include <grpcpp/grpcpp.h>

#include <array>
#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "echo_bench.grpc.pb.h"
#include "ferry/bench/flag_parser.h"
#include "ferry/bench/load_driver.h"
#include "ferry/bench/load_options.h"
#include "ferry/bench/load_report.h"

namespace ferry::bench {
namespace {

using grpc_bench::EchoBench;
using grpc_bench::EchoBenchRequest;
using grpc_bench::EchoBenchResponse;
using Clock = LoadDriver::Clock;

// Long enough never to fire on a healthy server; it bounds how long shutdown waits for calls a
// broken one never answers.
constexpr std::chrono::seconds kCallTimeout{5};

std::string_view StatusName(grpc::StatusCode code) {
  static constexpr std::array<std::string_view, 17> kNames = {"OK",
                                                              "CANCELLED",
                                                              "UNKNOWN",
                                                              "INVALID_ARGUMENT",
                                                              "DEADLINE_EXCEEDED",
                                                              "NOT_FOUND",
                                                              "ALREADY_EXISTS",
                                                              "PERMISSION_DENIED",
                                                              "RESOURCE_EXHAUSTED",
                                                              "FAILED_PRECONDITION",
                                                              "ABORTED",
                                                              "OUT_OF_RANGE",
                                                              "UNIMPLEMENTED",
                                                              "INTERNAL",
                                                              "UNAVAILABLE",
                                                              "DATA_LOSS",
                                                              "UNAUTHENTICATED"};
  const auto index = static_cast<size_t>(code);
  return index < kNames.size() ? kNames[index] : std::string_view("UNKNOWN");
}

// State of one call slot, reused by every call the slot makes.
struct SlotCall {
  LoadDriver::Call call{};
  Clock::time_point sent;
  std::optional<grpc::ClientContext> context;  // single-use in gRPC, so re-emplaced per call
  EchoBenchRequest request;
  EchoBenchResponse response;
  grpc::Status status;
  // Lives in the call's arena: reset before the context that owns the call is replaced.
  std::unique_ptr<grpc::ClientAsyncResponseReader<EchoBenchResponse>> reader;
};

class GrpcTransport : public LoadDriver::Transport {
 public:
  GrpcTransport(LoadDriver& driver, const LoadOptions& options)
      : driver_(driver), options_(options) {
    for (uint32_t i = 0; i < options.conns; ++i) {
      grpc::ChannelArguments args;
      // Without a local pool, channels with equal arguments share one subchannel, i.e. one TCP
      // connection; the index makes each channel's arguments distinct as well.
      args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
      args.SetInt("ferry.bench.channel_index", static_cast<int>(i));
      args.SetMaxReceiveMessageSize(static_cast<int>(kMaxPayloadBytes) + 1024);
      channels_.push_back(
          grpc::CreateCustomChannel(options.target, grpc::InsecureChannelCredentials(), args));
      stubs_.push_back(EchoBench::NewStub(channels_.back()));
    }
    const std::string payload(options.size, 'x');
    for (uint32_t i = 0; i < options.conns * options.depth; ++i) {
      slots_.push_back(std::make_unique<SlotCall>());
      slots_.back()->request.set_payload(payload);
    }
    for (uint32_t i = 0; i < options.threads; ++i) {
      queues_.push_back(std::make_unique<grpc::CompletionQueue>());
      threads_.emplace_back([this, q = queues_.back().get()] { Poll(q); });
    }
  }
  ~GrpcTransport() override { Stop(); }

  bool Connect(std::chrono::seconds timeout) {
    const auto deadline = std::chrono::system_clock::now() + timeout;
    for (auto& channel : channels_) {
      if (!channel->WaitForConnected(deadline)) return false;
    }
    return true;
  }

  void Issue(const LoadDriver::Call& call) override {
    SlotCall& s = *slots_[call.slot];
    s.call = call;
    s.reader.reset();
    s.context.emplace();
    s.context->set_deadline(std::chrono::system_clock::now() + kCallTimeout);
    s.request.set_sleep_ms(call.slow ? options_.slow_ms : 0);
    s.sent = Clock::now();
    s.reader = stubs_[call.connection]->AsyncEcho(&*s.context, s.request,
                                                  queues_[call.connection % queues_.size()].get());
    s.reader->Finish(&s.response, &s.status, &s);
  }

  // Waits for the calls still out (bounded by kCallTimeout) and joins the queue threads.
  void Stop() {
    if (threads_.empty()) return;
    for (auto& queue : queues_) queue->Shutdown();
    for (auto& thread : threads_) thread.join();
    threads_.clear();
  }

 private:
  void Poll(grpc::CompletionQueue* queue) {
    void* tag = nullptr;
    bool ok = false;
    while (queue->Next(&tag, &ok)) {
      SlotCall& s = *static_cast<SlotCall*>(tag);
      const auto latency = Clock::now() - s.sent;
      std::string_view error;
      if (!s.status.ok()) {
        error = StatusName(s.status.error_code());
      } else if (s.response.payload().size() != options_.size) {
        error = "BAD_ECHO";
      }
      driver_.Complete(s.call, error, latency);
    }
  }

  LoadDriver& driver_;
  const LoadOptions options_;
  std::vector<std::shared_ptr<grpc::Channel>> channels_;
  std::vector<std::unique_ptr<EchoBench::Stub>> stubs_;
  std::vector<std::unique_ptr<SlotCall>> slots_;
  std::vector<std::unique_ptr<grpc::CompletionQueue>> queues_;
  std::vector<std::thread> threads_;
};

int Main(int argc, char** argv) {
  LoadOptions options;
  FlagParser flags("grpc-echo-bench");
  AddLoadFlags(flags, &options);
  if (auto exit_code = flags.ParseOrExit(argc, argv)) return *exit_code;

  LoadDriver driver(options);
  GrpcTransport transport(driver, options);
  if (!transport.Connect(std::chrono::seconds(5))) {
    std::cerr << "grpc-echo-bench: cannot connect to " << options.target << "\n";
    return 1;
  }
  const LoadReport report("grpc-echo-bench", options, std::cout);
  const LoadSummary summary = driver.Run(transport, report);
  transport.Stop();
  report.PrintSummary(summary);
  return 0;
}

}  // namespace
}  // namespace ferry::bench

int main(int argc, char** argv) { return ferry::bench::Main(argc, argv); }
