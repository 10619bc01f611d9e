#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "ferry/codec/status.h"
#include "ferry/framework/channel.h"
#include "ferry/framework/config.h"
#include "ferry/framework/config_reader.h"
#include "ferry/framework/filter.h"
#include "ferry/framework/service.h"

namespace ferry {

// The whole life of a Ferry process that serves, calls, or both:
//
//   int main(int argc, char** argv) {
//     ferry::App app("echo-server", argc, argv);  // --config FILE [--port N] [--registry URL]
//                                                 // [--dev]
//     EchoServiceImpl echo;
//     app.AddService(&echo);
//     return app.Run();
//   }
//
// The constructor parses the command line (flags override the YAML), loads the config (errors
// name file, line and key), loads its plugins and sets the log level. Run() listens, registers
// the services only once listening, prints "<name> listening on <host>:<port>" to stdout, and on
// SIGINT or SIGTERM stops gracefully: it unregisters, keeps serving for server.drain_delay_ms
// while consumers learn of it, tells every client to go away (GOAWAY), finishes the calls in
// flight within server.grace_period_ms, runs the OnStop() hooks and exits 0.
//
// Failures anywhere (a bad flag or config, an unknown client name, a port taken) are kept, and
// Run() prints the first and returns 2 for a usage or config error, 1 otherwise; so a main()
// reads straight through. Construct the App first thing in main(), before any thread starts:
// it blocks SIGINT and SIGTERM so that only Run() receives them.
class App {
 public:
  App(std::string name, int argc, char** argv);
  // The same from an already loaded config (tests, embedding): no flags, no signals.
  App(std::string name, Config config);
  ~App();
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  const std::string& name() const;
  bool ok() const;
  Status status() const;  // the first failure
  const Config& config() const;

  // Reads the `service:` section (see ReadServiceSection); a failure becomes the app's
  // (status(), which Run() prints).
  void ReadServiceConfig(const std::function<void(config::ConfigReader& service)>& read);

  // Not owned; must outlive the app. Before Start().
  void AddService(Service* service);
  // Before Start(): a server filter made in code, run after server.filters (Server::AddFilter).
  void AddServerFilter(std::string name, std::shared_ptr<ServerFilter> filter);

  // The channel of client `name` (YAML `clients.<name>`), built on first use and shared after.
  // Calls through it inherit the deadline and trace of the call being served (CallScope). An
  // unknown name makes the app fail to start, naming it; the channel then fails every call.
  std::shared_ptr<Channel> ClientChannel(std::string_view name);
  // A generated proxy over ClientChannel(name), e.g. app.Client<EchoServiceProxy>("echo").
  template <class Proxy>
  Proxy Client(std::string_view name) {
    return Proxy(ClientChannel(name));
  }

  // Runs when the app stops, after its server drained and stopped, last registered first: for
  // the services' own background work and connections.
  void OnStop(std::function<void()> hook);

  // Start(), the ready line, a wait for SIGINT or SIGTERM, Stop(). The process's exit code.
  int Run();

  // Listens and registers. The parts of Run() for a caller that waits in its own way.
  Status Start();
  uint16_t port() const;  // valid after Start()
  // Whether the app serves and is registered: false before Start() and once Stop() began.
  bool ready() const;
  // The graceful stop Run() performs on a signal. Idempotent; any thread but a handler's.
  void Stop();

  // Records `status` as the app's failure (if it is the first), prints it, and returns the exit
  // code for it: for a main() that finds a problem of its own.
  int Fail(const Status& status);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ferry
