#include "fuzz_server.h"

#include <cstdio>
#include <cstdlib>

#include "ferry/framework/logging.h"

namespace ferry::fuzz {
namespace {

Server* running = nullptr;

// The IO thread still closes the last input's connection when libFuzzer calls exit(), which then
// destroys statics that thread uses (metric families, say): the server stops first.
void StopBeforeExit() { running->Stop(); }

}  // namespace

const FuzzServer& TheServer() {
  static const FuzzServer started = [] {
    // What a fuzzer checks is in its answers; warnings about odd input are only noise.
    static_cast<void>(SetLogLevel("warn"));
    // Never freed, and held here: reachable to the leak checker until the process ends.
    auto* service = new RecordingEchoService();
    auto* server = new Server(ServerOptions{.worker_threads = 1});
    Status status = server->AddService(service);
    if (status.ok()) status = server->Start();
    if (!status.ok()) {
      std::fprintf(stderr, "cannot start the fuzzed server: %s\n", status.ToString().c_str());
      std::abort();
    }
    running = server;
    std::atexit(StopBeforeExit);
    return FuzzServer{.server = server, .port = server->port(), .service = service};
  }();
  return started;
}

}  // namespace ferry::fuzz
