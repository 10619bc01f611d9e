#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "ferry/codec/status.h"
#include "ferry/idgen/worker_id_lease.h"

namespace ferry::idgen {

struct ZooKeeperWorkerIdLeaseOptions {
  // "zookeeper://host:port[,host:port...]", the same form as the registry URL.
  std::string url;
  // The id space: workers of one namespace get distinct ids, different namespaces may reuse
  // them (e.g. "seckill-orders", "short-links"). One znode name: not empty, not "." or "..",
  // no '/', whitespace or control characters.
  std::string namespace_name = "default";
  // The ZooKeeper session; the server clamps it to its own min/max. A disconnection longer
  // than this expires the session and loses the id; a crashed process's id is free after it.
  // While disconnected the id stays usable for a third of the granted timeout less a tenth.
  std::chrono::milliseconds session_timeout{10000};
  // How long Acquire waits for the first worker id.
  std::chrono::milliseconds connect_timeout{5000};
  // Between attempts while no id is held (ZooKeeper unreachable, every id taken, an error).
  std::chrono::milliseconds retry_interval{1000};
};

// A worker id leased from ZooKeeper: the EPHEMERAL znode
// /ferry/idgen/<namespace>/workers/<id>, for the lowest free id in 0..1023 (ids are tried in
// order, ZNODEEXISTS moves on to the next). ZooKeeper deletes the node when the session ends,
// so a crashed process frees its id after the session timeout and a closed lease at once.
//
// The id is usable (Current() returns it) while the session is connected and the node is
// confirmed ours, and after a disconnection for as long as the session certainly lives (a
// third of the granted timeout less a tenth; README): past that the client cannot tell whether
// its session has expired, and once it has, another process may hold the id. A reconnect
// within the session resumes with the same id. After expiry a background thread opens a new
// session and leases again, which may yield a different id (the lowest free one then). The
// node is watched: deleted by someone else while the session lives, its id is dropped at once
// and another leased. The thread also retries, every retry_interval, whatever failed.
//
// Thread-safe. Closing (or destroying) the lease closes the session, freeing the id at once.
class ZooKeeperWorkerIdLease : public WorkerIdLease {
 public:
  // The session's id and password: with them another client can join and close the session,
  // which is how tests expire it (and how an operator could force a lease free).
  struct SessionCredentials {
    int64_t session_id = 0;
    std::array<char, 16> password{};
  };

  // Connects and leases an id, waiting up to connect_timeout. INVALID_ARGUMENT for a bad URL,
  // namespace or duration; UNAVAILABLE (with the last reason) when no id was leased in time.
  static Status Acquire(const ZooKeeperWorkerIdLeaseOptions& options,
                        std::shared_ptr<ZooKeeperWorkerIdLease>* out);

  ~ZooKeeperWorkerIdLease() override = default;  // the implementation's destructor Close()s

  // Stops the background thread and closes the session (ZooKeeper deletes the node at once if
  // it is reachable, else when the session times out). Current() is UNAVAILABLE afterwards.
  // Idempotent.
  virtual void Close() = 0;

  // Of the current session, from its first connection until it ends (expired, closed); a
  // disconnection within the session keeps them.
  virtual std::optional<SessionCredentials> session_credentials() const = 0;

  // "/ferry/idgen/<namespace>/workers/<id>" of the held id, empty when none is held.
  virtual std::string znode_path() const = 0;

 protected:
  ZooKeeperWorkerIdLease() = default;
};

}  // namespace ferry::idgen
