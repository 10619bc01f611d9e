#pragma once

// The scaffolding of the ferry-bench command tests: an in-process provider on an ephemeral
// loopback port, a scratch directory for an embedded backend's files, and one command run
// against a provider with what it wrote.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <ostream>
#include <span>
#include <sstream>
#include <string>
#include <utility>

#include "ferry/framework/server.h"

namespace ferry::bench {

class InProcessProvider {
 public:
  // `before_start` adds what a provider needs beyond its services (filters, say).
  explicit InProcessProvider(std::span<Service* const> services, ServerOptions options = {},
                             const std::function<void(Server&)>& before_start = nullptr)
      : server_(std::move(options)) {
    for (Service* service : services) EXPECT_TRUE(server_.AddService(service).ok());
    if (before_start) before_start(server_);
    const Status started = server_.Start();
    EXPECT_TRUE(started.ok()) << started;
  }
  ~InProcessProvider() { server_.Stop(); }

  std::string target() const { return "127.0.0.1:" + std::to_string(server_.port()); }
  uint16_t port() const { return server_.port(); }
  void Stop() { server_.Stop(); }

 private:
  Server server_;
};

// A fresh directory under the test's temporary directory, removed with this.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name)
      : path_(std::filesystem::path(::testing::TempDir()) /
              ("ferry-bench-" + name + "-" + std::to_string(getpid()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }

  const std::filesystem::path& path() const { return path_; }
  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  const std::filesystem::path path_;
};

// The last non-empty line of a command's output (where the RESULT line belongs).
inline std::string LastLine(const std::string& text) {
  const size_t end = text.find_last_not_of('\n');
  const size_t begin = text.rfind('\n', end);
  return text.substr(begin == std::string::npos ? 0 : begin + 1, end - begin);
}

// One ferry-bench command run: its exit code, what it wrote and what it found.
template <class Outcome>
struct CommandRun {
  int exit_code = -1;
  std::string out;
  std::string err;
  Outcome outcome;

  std::string output() const { return out + err; }
};

// Runs `bench(target, out, err, &outcome)` against a provider of `services` and stops the
// provider before returning.
template <class Outcome, class Bench>
CommandRun<Outcome> RunAgainstProvider(std::span<Service* const> services,
                                       ServerOptions server_options, const Bench& bench) {
  CommandRun<Outcome> run;
  std::ostringstream out;
  std::ostringstream err;
  {
    InProcessProvider provider(services, std::move(server_options));
    run.exit_code = bench(provider.target(), out, err, &run.outcome);
  }
  run.out = out.str();
  run.err = err.str();
  return run;
}

}  // namespace ferry::bench
