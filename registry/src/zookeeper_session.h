#pragma once

#include <zookeeper/zookeeper.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ferry/codec/status.h"

namespace ferry::registry {

// One ZooKeeper session: a zhandle_t of the multi-threaded C client, closed on destruction.
// The C client reports events on its own completion thread, where nothing may block or call
// ZooKeeper synchronously; so events only go to `sink`, which must hand them off quickly. The
// synchronous calls below are for the owner's own thread.
class ZooKeeperSession {
 public:
  struct Event {
    enum class Kind { kState, kChildrenChanged };
    Kind kind;
    int state = 0;     // kState: ZOO_CONNECTED_STATE, ZOO_EXPIRED_SESSION_STATE, ...
    std::string path;  // kChildrenChanged: the node whose children changed (or that went away)
  };
  using EventSink = std::function<void(const Event&)>;

  // Starts connecting in the background; the sink sees ZOO_CONNECTED_STATE once connected.
  // UNAVAILABLE when the client cannot even be created (e.g. an unresolvable host).
  static Status Open(const std::string& hosts, std::chrono::milliseconds session_timeout,
                     EventSink sink, std::unique_ptr<ZooKeeperSession>* out);

  ~ZooKeeperSession();  // the sink is never called after this returns
  ZooKeeperSession(const ZooKeeperSession&) = delete;
  ZooKeeperSession& operator=(const ZooKeeperSession&) = delete;

  // Valid once connected; 0 / unspecified before.
  clientid_t client_id() const;
  int64_t session_id() const { return client_id().client_id; }

  // Each returns ZooKeeper's result code (ZOK, ZNONODE, ZNODEEXISTS, ZCONNECTIONLOSS...).
  int CreateEphemeral(const std::string& path, const std::string& data);
  // Creates `path` and any missing ancestor as empty persistent nodes.
  int EnsurePersistentPath(const std::string& path);
  int Delete(const std::string& path, int version);
  // Deletes the node at `version` and creates it again as ephemeral with `data`, atomically,
  // so readers never see it missing in between.
  int Replace(const std::string& path, int version, const std::string& data);
  // `data` may be null when only `stat` is wanted.
  int Get(const std::string& path, std::string* data, Stat* stat);
  // Also leaves a one-shot watch that reports kChildrenChanged for `path`.
  int GetChildrenAndWatch(const std::string& path, std::vector<std::string>* children);

 private:
  explicit ZooKeeperSession(EventSink sink) : sink_(std::move(sink)) {}
  static void OnSessionEvent(zhandle_t* zh, int type, int state, const char* path, void* context);
  static void OnChildrenEvent(zhandle_t* zh, int type, int state, const char* path, void* context);

  const EventSink sink_;
  zhandle_t* zh_ = nullptr;
};

// "ZNONODE (node does not exist)": ZooKeeper's name and text for a result code.
std::string ZooKeeperErrorText(int rc);

}  // namespace ferry::registry
