#pragma once

#include <zookeeper/zookeeper.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "ferry/codec/status.h"

namespace ferry::registry {

struct ZooKeeperSessionOptions {
  // The C client's connect string, "host:port[,host:port...]" (ParseZooKeeperUrl).
  std::string hosts;
  // "user:password" (ParseZooKeeperUrl): each session authenticates with ZooKeeper's digest
  // scheme, and the nodes created here are readable by everyone but writable and deletable by
  // that identity alone. Empty: no authentication, and nodes get the open ACL.
  std::string digest;
  // Requested from the server, which clamps it to its own min/max. A disconnection longer than
  // this expires the session and deletes its ephemeral nodes.
  std::chrono::milliseconds session_timeout{10000};
};

// A ZooKeeper session over the multi-threaded C client, shared by every Ferry user of
// ZooKeeper (the zookeeper registry, the idgen worker-id lease). Each Open() starts a new
// session on a new handle; every handle is opened, and every node created, here, so how Ferry
// authenticates and which ACL its nodes get is decided in this class alone (docs/registry.md,
// "Access control").
//
// The C client reports events on its own completion thread, where nothing may block or call
// ZooKeeper synchronously; so events only go to the sink, which must hand them off quickly.
// Open, Close and the node operations are for one owner thread; the accessors marked
// thread-safe may be called from any thread, the sink included.
class ZooKeeperSession {
 public:
  struct Event {
    enum class Kind {
      kState,            // the session's state changed: `state`
      kChildrenChanged,  // GetChildrenAndWatch's watch: `path`'s children changed
      kNodeDeleted,      // either watch: `path` was deleted
    };
    Kind kind = Kind::kState;
    int state = 0;  // kState: ZOO_CONNECTED_STATE, ZOO_EXPIRED_SESSION_STATE, ...
    std::string path;
    // Of the handle that reported it: IsCurrent tells an event of a replaced session.
    uint64_t generation = 0;
  };
  using EventSink = std::function<void(const Event&)>;

  ZooKeeperSession(ZooKeeperSessionOptions options, EventSink sink);
  ~ZooKeeperSession();  // Close()
  ZooKeeperSession(const ZooKeeperSession&) = delete;
  ZooKeeperSession& operator=(const ZooKeeperSession&) = delete;

  // Closes the current session, if any, and starts connecting a new one in the background: how
  // a session is re-established after it expired. The sink sees ZOO_CONNECTED_STATE once
  // connected. UNAVAILABLE when the client cannot even be created (e.g. an unresolvable host).
  Status Open();
  // Closes the session: ZooKeeper deletes its ephemeral nodes at once if it is reachable, else
  // when the session times out. The sink is not called for it after this returns.
  void Close();
  bool is_open() const { return zh_ != nullptr; }

  // Thread-safe. False for an event of a handle closed since; such events may still be queued
  // wherever the sink handed them to.
  bool IsCurrent(const Event& event) const;

  // Thread-safe. Waits up to `timeout` until the sink has been told that the current session
  // is connected, so that whatever the sink queued for ZOO_CONNECTED_STATE comes before
  // anything the waiting thread queues afterwards.
  bool WaitConnected(std::chrono::milliseconds timeout) const;

  // Thread-safe. The session's id and password from its first connection until it ends
  // (expired, authentication failed, closed); a disconnection within the session keeps them.
  // Another client can join and close the session with them, which is how tests expire it.
  std::optional<clientid_t> credentials() const;
  // Thread-safe. credentials()' id, 0 without a session: the ephemeralOwner of its nodes.
  int64_t session_id() const;
  // Thread-safe. The session timeout the server granted (it clamps the requested one to its
  // own bounds), as of the last connection; 0 before the first.
  std::chrono::milliseconds negotiated_timeout() const;

  // Each returns ZooKeeper's result code (ZOK, ZNONODE, ZNODEEXISTS, ZCONNECTIONLOSS...).
  int CreateEphemeral(const std::string& path, const std::string& data);
  // Creates `path` and any missing ancestor as empty persistent nodes. With a digest, the
  // ancestors it creates let everyone read them and add children (other services, other
  // namespaces), `path` itself only read: children of `path` are added and removed by this
  // identity alone. An existing `path` that lets everyone do more than read (created by a
  // session without credentials: a consumer that subscribed first) is given that ACL too.
  int EnsurePersistentPath(const std::string& path);
  int Delete(const std::string& path, int version);
  // Deletes the node at `version` and creates it again as ephemeral with `data`, atomically,
  // so readers never see it missing in between.
  int Replace(const std::string& path, int version, const std::string& data);
  // `data` may be null when only `stat` is wanted.
  int Get(const std::string& path, std::string* data, Stat* stat);
  int GetChildren(const std::string& path, std::vector<std::string>* children);
  // Also leaves a one-shot watch that reports kChildrenChanged (or kNodeDeleted) for `path`.
  int GetChildrenAndWatch(const std::string& path, std::vector<std::string>* children);
  // ZOK or ZNONODE, with `stat` filled when the node exists. Also leaves a one-shot watch that
  // reports the node's deletion (kNodeDeleted); its creation or new data are not reported.
  int ExistsAndWatch(const std::string& path, Stat* stat);

 private:
  // What a handle's callbacks get as their context; lives until the handle is closed.
  struct HandleContext {
    ZooKeeperSession* session;
    uint64_t generation;
  };

  // The handle's watcher: session events only.
  static void OnSessionWatch(zhandle_t* zh, int type, int state, const char* path, void* context);
  // The node watches' watcher.
  static void OnNodeWatch(zhandle_t* zh, int type, int state, const char* path, void* context);
  // Records what the event means for credentials() and WaitConnected around handing it off.
  void OnStateChange(zhandle_t* zh, const Event& event);
  int ListChildren(const std::string& path, bool watch, std::vector<std::string>* children);

  // With a digest: whether `path`'s ACL lets everyone do more than read, and if so gives it
  // owned_acl_.
  int RestrictIfOpen(const std::string& path);

  const ZooKeeperSessionOptions options_;
  const EventSink sink_;
  // Of the nodes created here: ephemeral nodes and EnsurePersistentPath's `path` get owned_acl_,
  // the ancestors it creates shared_acl_. The open ACL without a digest.
  const ACL_vector* const owned_acl_;
  const ACL_vector* const shared_acl_;

  mutable std::mutex mu_;
  mutable std::condition_variable handed_off_cv_;
  uint64_t generation_ = 0;                // of the current handle
  std::optional<clientid_t> credentials_;  // of the current handle's session
  std::chrono::milliseconds negotiated_timeout_{0};
  bool connected_handed_off_ = false;  // the sink was told the current handle connected

  // The owner thread's.
  zhandle_t* zh_ = nullptr;
  std::unique_ptr<HandleContext> context_;
};

// "-101 (no node)": ZooKeeper's result code and its text.
std::string ZooKeeperErrorText(int rc);
// "connected", "session expired", ...: a session state for logs and messages.
std::string ZooKeeperStateName(int state);

}  // namespace ferry::registry
