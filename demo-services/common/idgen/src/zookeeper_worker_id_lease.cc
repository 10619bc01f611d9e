#include "ferry/idgen/zookeeper_worker_id_lease.h"

#include <pthread.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "ferry/framework/logging.h"
#include "ferry/idgen/id_layout.h"
#include "ferry/registry/path_segment.h"
#include "ferry/registry/registry_url.h"
#include "ferry/registry/zookeeper_session.h"

namespace ferry::idgen {
namespace {

using registry::ZooKeeperErrorText;
using registry::ZooKeeperSession;
using registry::ZooKeeperStateName;

constexpr int32_t kNone = -1;

int64_t SteadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// How long an id stays usable after the connection is lost. The C client declares the
// connection lost after two thirds of the session timeout without hearing from the server, and
// the server expires a session no sooner than a whole timeout after it last heard from it; so
// for a third of the timeout after the disconnection the session (and the id's node) certainly
// lives. A tenth of the timeout is kept back for the round trip and for clock rates.
std::chrono::milliseconds DisconnectedGrace(std::chrono::milliseconds session_timeout) {
  return session_timeout / 3 - session_timeout / 10;
}

// Who holds an id, for an operator looking at the znode.
std::string NodeData() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) std::strcpy(host, "?");
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  return "host=" + std::string(host) + "\npid=" + std::to_string(getpid()) +
         "\nleased_at_ms=" + std::to_string(now_ms) + "\n";
}

class ZooKeeperWorkerIdLeaseImpl final : public ZooKeeperWorkerIdLease {
 public:
  ZooKeeperWorkerIdLeaseImpl(ZooKeeperWorkerIdLeaseOptions options, registry::ZooKeeperUrl url)
      : options_(std::move(options)),
        workers_dir_("/ferry/idgen/" + options_.namespace_name + "/workers"),
        session_({.hosts = std::move(url.connect_string),
                  .digest = std::move(url.digest),
                  .session_timeout = options_.session_timeout},
                 [this](const ZooKeeperSession::Event& event) { OnSessionEvent(event); }) {}

  ~ZooKeeperWorkerIdLeaseImpl() override { Close(); }

  void Start() {
    worker_ = std::thread([this] { Run(); });
  }

  // True once an id is usable, false after `timeout` without.
  bool WaitHeld(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return usable_id_.load() != kNone; });
  }

  std::string reason() const {
    std::lock_guard lock(mu_);
    return reason_;
  }

  Status Current(uint32_t* worker_id) const override {
    const int32_t id = usable_id_.load(std::memory_order_acquire);
    const int64_t until = usable_until_ns_.load(std::memory_order_acquire);
    if (id != kNone && (until == 0 || SteadyNs() < until)) {
      *worker_id = static_cast<uint32_t>(id);
      return Status::Ok();
    }
    std::lock_guard lock(mu_);
    return Status(StatusCode::UNAVAILABLE, "no idgen worker id held in namespace '" +
                                               options_.namespace_name + "': " + reason_);
  }

  void Close() override {
    std::lock_guard close_lock(close_mu_);
    {
      std::lock_guard lock(mu_);
      if (closing_) return;
      closing_ = true;
      usable_id_ = kNone;
      usable_until_ns_ = 0;
      reason_ = "the lease is closed";
    }
    cv_.notify_all();
    if (worker_.joinable()) worker_.join();
    const int32_t released = leased_id_;
    CloseSession();
    {
      std::lock_guard lock(mu_);
      held_path_.clear();
    }
    if (released != kNone) {
      Logger().info("idgen: released worker id {} of namespace '{}'", released,
                    options_.namespace_name);
    }
  }

  std::optional<SessionCredentials> session_credentials() const override {
    const std::optional<clientid_t> session = session_.credentials();
    if (!session) return std::nullopt;
    SessionCredentials credentials;
    credentials.session_id = session->client_id;
    std::memcpy(credentials.password.data(), session->passwd, credentials.password.size());
    return credentials;
  }

  std::string znode_path() const override {
    std::lock_guard lock(mu_);
    return held_path_;
  }

 private:
  std::string WorkerPath(int32_t id) const { return workers_dir_ + "/" + std::to_string(id); }

  // The C client's thread: nothing here may block or call ZooKeeper. Events of a replaced
  // session are ignored.
  void OnSessionEvent(const ZooKeeperSession::Event& event) {
    if (event.kind == ZooKeeperSession::Event::Kind::kState) {
      OnSessionState(event);
    } else if (event.kind == ZooKeeperSession::Event::Kind::kNodeDeleted) {
      OnNodeDeleted(event);
    }
  }

  // The watch on a worker id node: its deletion while the session lives (an operator, or
  // another process "stealing" the id) ends the lease of that id.
  void OnNodeDeleted(const ZooKeeperSession::Event& event) {
    const std::string& path = event.path;
    {
      std::lock_guard lock(mu_);
      if (!session_.IsCurrent(event) || closing_) return;
      deleted_.insert(path);
      if (path == held_path_) {
        usable_id_ = kNone;
        usable_until_ns_ = 0;
        held_path_.clear();
        reason_ = path + " was deleted while the session lived; leasing a worker id again";
        Logger().warn("idgen: {} was deleted by someone else; leasing a worker id again", path);
      }
      changed_ = true;
    }
    cv_.notify_all();
  }

  // Records the state and wakes the worker. Disconnected, the id stays usable for the grace
  // (DisconnectedGrace), after which Current() refuses it; a reconnect within the grace keeps
  // it, a later one has the worker confirm the node first. An ended session loses it at once.
  void OnSessionState(const ZooKeeperSession::Event& event) {
    const int state = event.state;
    {
      std::lock_guard lock(mu_);
      if (!session_.IsCurrent(event) || closing_) return;
      session_state_ = state;
      const bool ended = state == ZOO_EXPIRED_SESSION_STATE || state == ZOO_AUTH_FAILED_STATE;
      if (state == ZOO_CONNECTED_STATE) {
        const int64_t until = usable_until_ns_.exchange(0);
        if (until != 0 && SteadyNs() >= until) {
          usable_id_ = kNone;  // the worker confirms the node is still ours first
        } else if (until != 0) {
          Logger().info(
              "idgen: reconnected to ZooKeeper within the grace; worker id {} of namespace "
              "'{}' kept",
              usable_id_.load(), options_.namespace_name);
        }
      } else if (ended) {
        usable_id_ = kNone;
        usable_until_ns_ = 0;
        // The node went with the session: whoever leases next may get this id.
        session_ended_ = true;
        reason_ = "the ZooKeeper session ended (" + ZooKeeperStateName(state) +
                  "); leasing a worker id again";
        Logger().warn(
            "idgen: ZooKeeper session of namespace '{}' ended ({}); {}, leasing a worker "
            "id again",
            options_.namespace_name, ZooKeeperStateName(state),
            held_path_.empty() ? "no worker id was held" : held_path_ + " is lost");
        held_path_.clear();
      } else {
        const std::chrono::milliseconds grace = DisconnectedGrace(session_.negotiated_timeout());
        reason_ = "disconnected from ZooKeeper (" + ZooKeeperStateName(state) + ") for longer " +
                  "than the " + std::to_string(grace.count()) +
                  " ms its session is certain to live; the worker id is suspended until the "
                  "session reconnects";
        const int32_t held = usable_id_.load();
        if (held != kNone && usable_until_ns_.load() == 0) {
          usable_until_ns_ = SteadyNs() + std::chrono::nanoseconds(grace).count();
          Logger().warn(
              "idgen: lost the ZooKeeper connection; worker id {} of namespace '{}' stays "
              "usable for {} ms, then is suspended until the session reconnects",
              held, options_.namespace_name, grace.count());
        }
      }
      changed_ = true;
    }
    cv_.notify_all();
  }

  // The worker thread: owns the session and makes every ZooKeeper call.
  void Run() {
    pthread_setname_np(pthread_self(), "ferry-idgen-zk");
    std::unique_lock lock(mu_);
    while (!closing_) {
      const bool need_session = !session_.is_open() || session_ended_;
      const bool lease_now =
          !need_session && session_state_ == ZOO_CONNECTED_STATE && usable_id_.load() == kNone;
      changed_ = false;
      lock.unlock();
      if (need_session) {
        CloseSession();
        OpenSession();
      } else if (lease_now) {
        Lease();
      }
      lock.lock();
      // Events wake the worker at once; the interval paces retries of whatever failed.
      cv_.wait_for(lock, options_.retry_interval, [&] { return closing_ || changed_; });
    }
  }

  // After CloseSession(): the closed session reports nothing more, so its state is reset
  // before the new one can report anything.
  void OpenSession() {
    {
      std::lock_guard lock(mu_);
      session_state_ = 0;
      session_ended_ = false;
      deleted_.clear();
    }
    leased_id_ = kNone;
    uncertain_id_ = kNone;
    if (Status status = session_.Open(); !status.ok()) Fail(status.message());
  }

  // Closing the session deletes its ephemeral node, i.e. frees the id.
  void CloseSession() {
    session_.Close();
    leased_id_ = kNone;
  }

  void Fail(std::string reason) {
    std::lock_guard lock(mu_);
    reason_ = std::move(reason);
  }

  void Failed(const std::string& what, int rc) {
    Fail(what + " failed: " + ZooKeeperErrorText(rc));
  }

  // Whether `id`'s node exists and belongs to this session (false with `rc` set on an error),
  // leaving a watch that reports the node's deletion to OnNodeDeleted.
  bool IsOursAndWatch(int32_t id, int* rc) {
    const std::string path = WorkerPath(id);
    {
      std::lock_guard lock(mu_);
      deleted_.erase(path);  // from here on, a deletion is news
    }
    Stat stat{};
    *rc = session_.ExistsAndWatch(path, &stat);
    if (*rc == ZNONODE) *rc = ZOK;
    return *rc == ZOK && stat.ephemeralOwner == session_.session_id() && stat.ephemeralOwner != 0;
  }

  // Connected: makes sure this session holds a worker id node and makes the id usable.
  void Lease() {
    int rc = ZOK;
    // A node this session created may still be ours: after a reconnect within the session, or
    // when a create's reply was lost. Reusing it keeps the id and leaks no second one.
    for (int32_t* candidate : {&leased_id_, &uncertain_id_}) {
      if (*candidate == kNone) continue;
      const int32_t id = *candidate;
      const bool ours = IsOursAndWatch(id, &rc);
      if (rc != ZOK) return Failed("checking " + WorkerPath(id), rc);
      *candidate = kNone;
      if (ours) return Take(id);
    }
    if ((rc = session_.EnsurePersistentPath(workers_dir_)) != ZOK) {
      return Failed("creating " + workers_dir_, rc);
    }
    // One listing skips the taken ids; a race with another process is settled by the create.
    std::vector<std::string> children;
    if ((rc = session_.GetChildren(workers_dir_, &children)) != ZOK) {
      return Failed("listing " + workers_dir_, rc);
    }
    std::vector<bool> taken(kMaxWorkerId + 1, false);
    for (const std::string& name : children) {
      uint32_t id = 0;
      auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), id);
      if (ec == std::errc() && end == name.data() + name.size() && id <= kMaxWorkerId) {
        taken[id] = true;
      }
    }

    const std::string data = NodeData();
    for (int32_t id = 0; id <= static_cast<int32_t>(kMaxWorkerId); ++id) {
      if (taken[id]) continue;
      rc = session_.CreateEphemeral(WorkerPath(id), data);
      if (rc == ZNODEEXISTS) continue;  // lost the race for this id: the next one
      if (rc == ZCONNECTIONLOSS || rc == ZOPERATIONTIMEOUT) uncertain_id_ = id;
      if (rc != ZOK) return Failed("creating " + WorkerPath(id), rc);
      // Created: watch it (and make sure it is still there) before using the id.
      uncertain_id_ = id;
      const bool ours = IsOursAndWatch(id, &rc);
      if (rc != ZOK) return Failed("checking " + WorkerPath(id), rc);
      uncertain_id_ = kNone;
      if (ours) return Take(id);
      return Fail(WorkerPath(id) + " vanished right after it was created");
    }
    Fail("all " + std::to_string(kMaxWorkerId + 1) + " worker ids under " + workers_dir_ +
         " are leased");
  }

  // `id`'s node is this session's and watched.
  void Take(int32_t id) {
    const std::string path = WorkerPath(id);
    const int64_t session = session_.session_id();
    {
      std::lock_guard lock(mu_);
      // Deleted since it was checked: the event has set changed_, so the worker starts over.
      if (deleted_.count(path) > 0) return;
      leased_id_ = id;
      // Disconnected meanwhile: the next connected event brings the worker back to confirm.
      if (closing_ || session_ended_ || session_state_ != ZOO_CONNECTED_STATE) return;
      usable_id_.store(id, std::memory_order_release);
      held_path_ = path;
      reason_.clear();
    }
    cv_.notify_all();
    Logger().info("idgen: holding worker id {} ({}) with ZooKeeper session {:#x}", id, path,
                  session);
  }

  const ZooKeeperWorkerIdLeaseOptions options_;
  const std::string workers_dir_;  // /ferry/idgen/<namespace>/workers

  // The id while usable, kNone otherwise; read without a lock on every id issued. Written
  // under mu_ so that it agrees with session_state_.
  std::atomic<int32_t> usable_id_{kNone};
  // While disconnected: the steady-clock time (ns) from which usable_id_ is not to be used;
  // 0 while connected. Written under mu_.
  std::atomic<int64_t> usable_until_ns_{0};

  std::mutex close_mu_;  // serialises Close()
  mutable std::mutex mu_;
  std::condition_variable cv_;  // changed_, closing_ and usable_id_ changes
  bool closing_ = false;
  bool changed_ = false;        // an event the worker has not looked at yet
  int session_state_ = 0;       // as last reported for the current session
  bool session_ended_ = false;  // expired or auth failed: a new session is needed
  std::string reason_ = "no worker id leased yet";  // why usable_id_ is kNone
  std::string held_path_;                           // of usable_id_
  // Watched nodes of this session deleted since last checked; stops Take() from using an id
  // whose deletion was reported before it was held.
  std::set<std::string> deleted_;

  std::thread worker_;
  // The worker thread's (and, once it has been joined, Close()'s), but for the thread-safe
  // accessors (ZooKeeperSession).
  ZooKeeperSession session_;
  int32_t leased_id_ = kNone;     // this session's node, usable or not
  int32_t uncertain_id_ = kNone;  // a create of this session with an unknown outcome
};

}  // namespace

Status ZooKeeperWorkerIdLease::Acquire(const ZooKeeperWorkerIdLeaseOptions& options,
                                       std::shared_ptr<ZooKeeperWorkerIdLease>* out) {
  registry::ZooKeeperUrl url;
  if (Status status = registry::ParseZooKeeperUrl(options.url, &url); !status.ok()) {
    return status;
  }
  if (Status status = registry::CheckPathSegment("idgen namespace", options.namespace_name);
      !status.ok()) {
    return status;
  }
  const auto positive = [](const char* name, std::chrono::milliseconds value) {
    if (value.count() > 0 && value.count() <= 3600 * 1000) return Status::Ok();
    return Status(StatusCode::INVALID_ARGUMENT, std::string("idgen ") + name +
                                                    " must be within 1..3600000 ms, got " +
                                                    std::to_string(value.count()));
  };
  for (const auto& [name, value] : {std::pair{"session_timeout", options.session_timeout},
                                    std::pair{"connect_timeout", options.connect_timeout},
                                    std::pair{"retry_interval", options.retry_interval}}) {
    if (Status status = positive(name, value); !status.ok()) return status;
  }

  auto lease = std::make_shared<ZooKeeperWorkerIdLeaseImpl>(options, std::move(url));
  lease->Start();
  if (!lease->WaitHeld(options.connect_timeout)) {
    Status status(StatusCode::UNAVAILABLE,
                  "no idgen worker id leased from " + RedactedUrl(options.url) + " in namespace '" +
                      options.namespace_name + "' within " +
                      std::to_string(options.connect_timeout.count()) + " ms: " + lease->reason());
    lease->Close();
    return status;
  }
  *out = std::move(lease);
  return Status::Ok();
}

}  // namespace ferry::idgen
