#pragma once

#include <gtest/gtest.h>

#include <string>

#include "ready_process.h"

namespace ferry::cluster {

// echo-server as a child process that registers itself in a ZooKeeper registry, so that a
// test can kill it with SIGKILL like a crashed host. Killed on destruction, and by the kernel
// if the test process dies first.
class ProviderProcess {
 public:
  // Starts it on an ephemeral port, registered under `namespace_name` with a 2 s session, and
  // waits (up to 20 s) for its ready line.
  ::testing::AssertionResult Start(const std::string& registry_url,
                                   const std::string& namespace_name);
  void Kill() { process_.Kill(); }

  const std::string& address() const { return process_.address(); }

 private:
  testsupport::ReadyProcess process_;
};

}  // namespace ferry::cluster
