#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <string>

namespace ferry::cluster {

// echo-server as a child process that registers itself in a ZooKeeper registry, so that a
// test can kill it with SIGKILL like a crashed host. Killed on destruction, and by the kernel
// if the test process dies first.
class ProviderProcess {
 public:
  ProviderProcess() = default;
  ~ProviderProcess() { Kill(); }
  ProviderProcess(const ProviderProcess&) = delete;
  ProviderProcess& operator=(const ProviderProcess&) = delete;

  // Starts it on an ephemeral port, registered under `namespace_name` with a 2 s session, and
  // waits (up to 20 s) for its ready line.
  ::testing::AssertionResult Start(const std::string& registry_url,
                                   const std::string& namespace_name);
  void Kill();

  const std::string& address() const { return address_; }

 private:
  pid_t pid_ = -1;
  std::string address_;
};

}  // namespace ferry::cluster
