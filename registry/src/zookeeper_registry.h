#pragma once

#include <zookeeper/zookeeper.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ferry/framework/registry.h"
#include "ferry/registry/zookeeper_session.h"
#include "serial_executor.h"
#include "service_directory.h"

namespace ferry::registry {

// `zookeeper://host:port[,host:port...]`: providers are ephemeral znodes, clients watch the
// providers directory of each service they subscribe to (layout and failure handling in
// docs/registry.md).
//
// Every ZooKeeper call runs on one worker thread, which also owns all session state; the
// client library's callbacks only post events to it. Public methods post to the worker too,
// and Register/Unregister wait for the outcome of their first attempt.
class ZooKeeperRegistry final : public Registry {
 public:
  static constexpr std::string_view kScheme = "zookeeper";

  ZooKeeperRegistry() = default;
  ~ZooKeeperRegistry() override;  // Stop()

  Status Start(const RegistryOptions& options) override;
  Status Register(const std::string& service, const ProviderInfo& provider) override;
  Status Unregister(const std::string& service, const std::string& address) override;
  uint64_t Subscribe(const std::string& service, Listener listener) override;
  void Unsubscribe(uint64_t subscription) override;
  std::vector<ProviderInfo> Snapshot(const std::string& service) const override;
  Status Health() const override;
  bool RegistrationsPublished() const override;
  void Stop() override;

  // The id and password of the current session (ZooKeeperSession::credentials()). Tests use
  // them to expire the session the documented way (a second client joins it, then closes).
  std::optional<clientid_t> session_credentials() const;

 private:
  // Runs `attempt` on the worker and waits (bounded) for its result.
  Status RunOnWorker(std::function<Status()> attempt);

  // Worker thread only, from here on.
  void OpenSession();
  void OnEvent(const ZooKeeperSession::Event& event);
  void OnStateChange(int state);
  void OnTick();
  void Resync();
  void SyncWatch(const std::string& service);
  void ReadProviders(const std::string& service);
  int Publish(const std::string& path, const std::string& record);
  int Withdraw(const std::string& path);
  // Turns a ZooKeeper failure into the Register/Unregister result; transient ones are retried.
  Status Outcome(int rc, const std::string& what);
  // Records whether `path` is in ZooKeeper as registered now, for RegistrationsPublished().
  void MarkPublished(const std::string& path, bool published);
  void ForgetPublished();
  void Shutdown();

  RegistryOptions options_;
  std::string hosts_;
  std::string shown_url_;  // options_.url without its credentials
  ServiceDirectory directory_;
  // Created by Start(); opened, used and closed by the worker only.
  std::unique_ptr<ZooKeeperSession> session_;
  std::unique_ptr<SerialExecutor> worker_;

  std::mutex stop_mu_;
  bool stopped_ = false;

  // Written by the worker, read by any thread.
  std::atomic<bool> reachable_{false};  // connected_
  std::atomic<bool> ever_connected_{false};
  std::atomic<bool> all_published_{true};  // every registrations_ path is in published_

  // Worker-only state.
  bool connected_ = false;      // as of the last session event the worker handled
  bool resync_needed_ = false;  // a transient failure left ZooKeeper behind our intent
  bool shut_down_ = false;
  std::map<std::string, std::string> registrations_;  // znode path -> provider record
  std::set<std::string> published_;    // of registrations_, those this session has in ZooKeeper
  std::set<std::string> withdrawals_;  // unregistered while ZooKeeper could not be told
  std::set<std::string> watched_;      // services with subscribers
};

}  // namespace ferry::registry
