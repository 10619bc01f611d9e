#include "zookeeper_registry.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <future>
#include <utility>

#include "ferry/framework/logging.h"
#include "ferry/registry/path_segment.h"
#include "ferry/registry/registry_url.h"
#include "provider_record.h"
#include "znode_layout.h"

namespace ferry::registry {
namespace {

using namespace std::chrono_literals;

// Failures that another attempt, after a reconnect or a moment later, may fix.
bool IsRetryable(int rc) {
  return rc != ZNOAUTH && rc != ZAUTHFAILED && rc != ZINVALIDACL && rc != ZBADARGUMENTS &&
         rc != ZNOCHILDRENFOREPHEMERALS;
}

std::string ParentOf(const std::string& path) { return path.substr(0, path.rfind('/')); }

}  // namespace

ZooKeeperRegistry::~ZooKeeperRegistry() { Stop(); }

Status ZooKeeperRegistry::Start(const RegistryOptions& options) {
  if (worker_) return Status(StatusCode::FAILED_PRECONDITION, "registry already started");
  ZooKeeperUrl url;
  Status status = ParseZooKeeperUrl(options.url, &url);
  if (status.ok()) status = CheckPathSegment("namespace", options.namespace_name);
  if (status.ok() && (options.session_timeout <= 0ms || options.connect_timeout <= 0ms)) {
    status = Status(StatusCode::INVALID_ARGUMENT,
                    "registry session_timeout_ms and connect_timeout_ms must be positive");
  }
  if (!status.ok()) return status;
  options_ = options;
  hosts_ = url.connect_string;
  shown_url_ = RedactedUrl(options.url);
  directory_.set_empty_protection(options.empty_protection);
  session_ = std::make_unique<ZooKeeperSession>(
      ZooKeeperSessionOptions{.hosts = hosts_,
                              .digest = std::move(url.digest),
                              .session_timeout = options.session_timeout},
      [this](const ZooKeeperSession::Event& event) {
        worker_->Post([this, event] { OnEvent(event); });
      });
  worker_ = std::make_unique<SerialExecutor>("ferry-zookeeper", 1s, [this] { OnTick(); });
  worker_->Post([this] { OpenSession(); });

  // The connected event is on the worker's queue by then, ahead of any Register.
  if (session_->WaitConnected(options.connect_timeout)) return Status::Ok();
  const std::string why = "no ZooKeeper session with " + hosts_ + " within " +
                          std::to_string(options.connect_timeout.count()) + " ms";
  if (options.startup == RegistryOptions::Startup::kWait) {
    // The C client goes on connecting; everything asked of us meanwhile is kept for then.
    Logger().warn(
        "registry: {}; starting without it and connecting in the background (registry.startup: "
        "wait): registrations are published, and provider lists read, once it answers",
        why);
    return Status::Ok();
  }
  Stop();
  return Status(StatusCode::UNAVAILABLE, why + " (registry.startup: failfast)");
}

Status ZooKeeperRegistry::Register(const std::string& service, const ProviderInfo& provider) {
  Status status = CheckPathSegment("service", service);
  std::string record;
  if (status.ok()) status = EncodeProviderRecord(provider, &record);
  if (!status.ok()) return status;
  return RunOnWorker([this, path = ProviderPath(options_.namespace_name, service, provider.address),
                      record = std::move(record)] {
    registrations_[path] = record;
    withdrawals_.erase(path);
    MarkPublished(path, false);
    if (!connected_) {
      Logger().warn("registry: ZooKeeper is unreachable; {} is published once it is back", path);
      return Status::Ok();
    }
    const int rc = Publish(path, record);
    if (rc == ZOK) MarkPublished(path, true);
    if (rc != ZOK && !IsRetryable(rc)) {
      registrations_.erase(path);
      MarkPublished(path, false);
    }
    return Outcome(rc, "publish " + path);
  });
}

Status ZooKeeperRegistry::Unregister(const std::string& service, const std::string& address) {
  Status status = CheckPathSegment("service", service);
  if (!status.ok()) return status;
  if (address.find('/') != std::string::npos) {
    return Status(StatusCode::INVALID_ARGUMENT, "provider address '" + address + "' holds '/'");
  }
  return RunOnWorker([this, path = ProviderPath(options_.namespace_name, service, address)] {
    if (registrations_.erase(path) == 0) return Status::Ok();
    MarkPublished(path, false);
    const int rc = connected_ ? Withdraw(path) : ZCONNECTIONLOSS;
    if (rc != ZOK && IsRetryable(rc)) withdrawals_.insert(path);
    return Outcome(rc, "withdraw " + path);
  });
}

uint64_t ZooKeeperRegistry::Subscribe(const std::string& service, Listener listener) {
  const auto subscription = directory_.Subscribe(service, std::move(listener));
  if (Status status = CheckPathSegment("service", service); !status.ok()) {
    Logger().error("registry: cannot subscribe: {}", status.message());
  } else if (subscription.first_of_service && worker_) {
    worker_->Post([this, service] { SyncWatch(service); });
  }
  return subscription.id;
}

void ZooKeeperRegistry::Unsubscribe(uint64_t subscription) {
  if (auto emptied = directory_.Unsubscribe(subscription); emptied && worker_) {
    worker_->Post([this, service = *emptied] { SyncWatch(service); });
  }
}

std::vector<ProviderInfo> ZooKeeperRegistry::Snapshot(const std::string& service) const {
  return directory_.Snapshot(service);
}

void ZooKeeperRegistry::Stop() {
  {
    std::lock_guard lock(stop_mu_);
    if (stopped_) return;
    stopped_ = true;
  }
  if (worker_) {
    worker_->Post([this] { Shutdown(); });
    worker_->Stop();
  }
  directory_.Stop();
}

Status ZooKeeperRegistry::Health() const {
  if (reachable_.load()) return Status::Ok();
  return Status(StatusCode::UNAVAILABLE,
                "registry " + shown_url_ + " is unreachable: " +
                    (ever_connected_.load() ? "lost its ZooKeeper connection"
                                            : "no ZooKeeper session since start"));
}

bool ZooKeeperRegistry::RegistrationsPublished() const { return all_published_.load(); }

std::optional<clientid_t> ZooKeeperRegistry::session_credentials() const {
  return session_ ? session_->credentials() : std::nullopt;
}

Status ZooKeeperRegistry::RunOnWorker(std::function<Status()> attempt) {
  auto result = std::make_shared<std::promise<Status>>();
  auto outcome = result->get_future();
  const bool posted = worker_ && worker_->Post([this, result, attempt = std::move(attempt)] {
    result->set_value(shut_down_ ? Status(StatusCode::FAILED_PRECONDITION, "registry stopped")
                                 : attempt());
  });
  if (!posted) return Status(StatusCode::FAILED_PRECONDITION, "registry not running");
  // ZooKeeper calls give up within the session timeout; the worker may have a resync ahead.
  if (outcome.wait_for(options_.connect_timeout + options_.session_timeout) ==
      std::future_status::timeout) {
    Logger().warn("registry: ZooKeeper is slow to answer; the change is kept and applied later");
    return Status::Ok();
  }
  return outcome.get();
}

void ZooKeeperRegistry::OpenSession() {
  connected_ = false;
  reachable_ = false;
  // The previous session's nodes go with it.
  ForgetPublished();
  // Closes the previous session, if any; its events still queued here are stale.
  Status status = session_->Open();
  if (!status.ok()) Logger().warn("registry: {}; retrying", status.message());  // by OnTick
}

void ZooKeeperRegistry::OnEvent(const ZooKeeperSession::Event& event) {
  if (shut_down_ || !session_->IsCurrent(event)) return;
  if (event.kind == ZooKeeperSession::Event::Kind::kState) {
    OnStateChange(event.state);
    return;
  }
  auto service = ServiceOfProvidersPath(options_.namespace_name, event.path);
  if (service && connected_ && watched_.contains(*service)) ReadProviders(*service);
}

void ZooKeeperRegistry::OnStateChange(int state) {
  if (state == ZOO_CONNECTED_STATE) {
    connected_ = true;
    reachable_ = true;
    ever_connected_ = true;
    Logger().info(
        "registry: connected to ZooKeeper {} (session {:#x}); publishing {} providers, reading "
        "{} services",
        hosts_, session_->session_id(), registrations_.size(), watched_.size());
    // Watches may have been missed while away: read everything again rather than trust them.
    Resync();
    return;
  }
  const bool was_connected = connected_;
  connected_ = false;
  reachable_ = false;
  if (state == ZOO_EXPIRED_SESSION_STATE) {
    Logger().warn("registry: ZooKeeper session expired; opening a new one to publish {} providers",
                  registrations_.size());
    OpenSession();
  } else if (state == ZOO_AUTH_FAILED_STATE) {
    Logger().error("registry: ZooKeeper {} rejected the session's authentication", hosts_);
  } else if (was_connected) {
    Logger().warn("registry: lost ZooKeeper {}; clients keep the cached providers until it is back",
                  hosts_);
  }
}

void ZooKeeperRegistry::OnTick() {
  if (shut_down_) return;
  if (!session_->is_open()) {
    OpenSession();
  } else if (connected_ && resync_needed_) {
    Resync();
  }
}

void ZooKeeperRegistry::Resync() {
  resync_needed_ = false;
  for (auto it = withdrawals_.begin(); it != withdrawals_.end();) {
    const int rc = Withdraw(*it);
    it = (rc == ZOK || !IsRetryable(rc)) ? withdrawals_.erase(it) : std::next(it);
    if (rc != ZOK) resync_needed_ = true;
  }
  for (const auto& [path, record] : registrations_) {
    if (const int rc = Publish(path, record); rc != ZOK) {
      resync_needed_ = true;
      Logger().warn("registry: cannot publish {}: {}; retrying", path, ZooKeeperErrorText(rc));
    } else {
      MarkPublished(path, true);
    }
  }
  for (const auto& service : watched_) ReadProviders(service);
}

void ZooKeeperRegistry::SyncWatch(const std::string& service) {
  if (shut_down_) return;
  if (!directory_.HasSubscribers(service)) {
    watched_.erase(service);
    return;
  }
  watched_.insert(service);
  // Read even if already watched: a subscriber that replaced the last one has no list yet.
  if (connected_) ReadProviders(service);
}

void ZooKeeperRegistry::ReadProviders(const std::string& service) {
  const std::string directory = ProvidersPath(options_.namespace_name, service);
  std::vector<std::string> children;
  int rc = session_->EnsurePersistentPath(directory);
  if (rc == ZOK) rc = session_->GetChildrenAndWatch(directory, &children);
  std::vector<ProviderInfo> providers;
  for (size_t i = 0; rc == ZOK && i < children.size(); ++i) {
    std::string record;
    const int get_rc = session_->Get(directory + "/" + children[i], &record, nullptr);
    if (get_rc == ZNONODE) continue;  // left since the listing; the watch reports it
    rc = get_rc;
    if (rc != ZOK) break;
    ProviderInfo provider;
    if (Status status = DecodeProviderRecord(children[i], record, &provider); !status.ok()) {
      // Only this node: its siblings are still worth calling.
      Logger().warn("registry: skipping provider node {}/{}: {}", directory, children[i],
                    status.message());
      continue;
    }
    providers.push_back(std::move(provider));
  }
  if (rc != ZOK) {
    resync_needed_ = true;
    Logger().warn("registry: cannot read the providers of '{}': {}; keeping the cached list",
                  service, ZooKeeperErrorText(rc));
    return;
  }
  std::sort(providers.begin(), providers.end(),
            [](const ProviderInfo& a, const ProviderInfo& b) { return a.address < b.address; });
  directory_.Update(service, std::move(providers));
}

int ZooKeeperRegistry::Publish(const std::string& path, const std::string& record) {
  int rc = session_->EnsurePersistentPath(ParentOf(path));
  if (rc == ZOK) rc = session_->CreateEphemeral(path, record);
  if (rc != ZNODEEXISTS) return rc;

  // Already there: ours from before a reconnect, or a leftover of an expired session (or of a
  // process that used this address before) that would vanish, taking our registration along,
  // when its session ends. Replace anything that is not exactly ours.
  std::string current;
  Stat stat;
  rc = session_->Get(path, &current, &stat);
  if (rc == ZNONODE) return session_->CreateEphemeral(path, record);
  if (rc != ZOK) return rc;
  const int64_t session_id = session_->session_id();
  if (stat.ephemeralOwner == session_id && current == record) return ZOK;
  if (stat.ephemeralOwner != session_id) {
    Logger().warn("registry: replacing {} left by session {:#x}", path, stat.ephemeralOwner);
  }
  return session_->Replace(path, stat.version, record);
}

int ZooKeeperRegistry::Withdraw(const std::string& path) {
  Stat stat;
  int rc = session_->Get(path, nullptr, &stat);
  if (rc == ZNONODE) return ZOK;
  if (rc != ZOK) return rc;
  // Someone else's node now (a new process at this address): not ours to remove.
  if (stat.ephemeralOwner != session_->session_id()) return ZOK;
  rc = session_->Delete(path, stat.version);
  return rc == ZNONODE ? ZOK : rc;
}

Status ZooKeeperRegistry::Outcome(int rc, const std::string& what) {
  if (rc == ZOK) return Status::Ok();
  if (IsRetryable(rc)) {
    resync_needed_ = true;
    Logger().warn("registry: cannot {} yet: {}; retrying", what, ZooKeeperErrorText(rc));
    return Status::Ok();
  }
  const StatusCode code =
      (rc == ZNOAUTH || rc == ZAUTHFAILED) ? StatusCode::PERMISSION_DENIED : StatusCode::INTERNAL;
  return Status(code, "ZooKeeper refused to " + what + ": " + ZooKeeperErrorText(rc));
}

void ZooKeeperRegistry::MarkPublished(const std::string& path, bool published) {
  if (published) {
    published_.insert(path);
  } else {
    published_.erase(path);
  }
  // published_ only ever holds paths of registrations_.
  all_published_ = published_.size() == registrations_.size();
}

void ZooKeeperRegistry::ForgetPublished() {
  published_.clear();
  all_published_ = registrations_.empty();
}

void ZooKeeperRegistry::Shutdown() {
  if (connected_) {
    // Closing the session removes them as well, but only if the close request gets through;
    // withdrawing first makes every leave certain and visible before Stop() returns.
    for (const auto& [path, record] : registrations_) Withdraw(path);
  } else if (!registrations_.empty()) {
    Logger().warn(
        "registry: stopping while ZooKeeper is unreachable; {} providers stay listed until the "
        "session expires",
        registrations_.size());
  }
  registrations_.clear();
  published_.clear();
  watched_.clear();
  session_->Close();
  connected_ = false;
  reachable_ = false;
  shut_down_ = true;
}

}  // namespace ferry::registry
