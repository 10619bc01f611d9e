#include "provider_process.h"

#include <unistd.h>

#include <fstream>

namespace ferry::cluster {
namespace {

std::string WriteConfig(const std::string& registry_url, const std::string& namespace_name) {
  static int files = 0;
  const std::string path = ::testing::TempDir() + "/cluster-provider-" +
                           std::to_string(::getpid()) + "-" + std::to_string(++files) + ".yaml";
  std::ofstream(path) << "log:\n  level: warn\n"
                      << "server:\n  listen: 127.0.0.1:0\n  grace_period_ms: 100\n"
                      << "  business_pool:\n    threads: 2\n    queue_capacity: 256\n"
                      << "registry:\n  url: " << registry_url << "\n  namespace: " << namespace_name
                      << "\n  session_timeout_ms: 2000\n";
  return path;
}

}  // namespace

::testing::AssertionResult ProviderProcess::Start(const std::string& registry_url,
                                                  const std::string& namespace_name) {
  return process_.Start({ECHO_SERVER_BINARY, "--config", WriteConfig(registry_url, namespace_name)},
                        "echo-server");
}

}  // namespace ferry::cluster
