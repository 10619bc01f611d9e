#include "zookeeper_session.h"

#include <cstring>
#include <mutex>
#include <string_view>
#include <utility>

#include "registry_log.h"

namespace ferry::registry {
namespace {

// The C client's own messages, already filtered to warnings and errors, go to Ferry's logger
// (stderr) instead of the client's default stream. While a server is down the client repeats
// the same connection error on every attempt; Ferry logs the state change once, at warn, so
// these are kept at debug to leave the log readable.
void ForwardClientLog(const char* message) { Log()->debug("zookeeper client: {}", message); }

void SetClientLogLevelOnce() {
  static std::once_flag once;
  std::call_once(once, [] { zoo_set_debug_level(ZOO_LOG_LEVEL_WARN); });
}

}  // namespace

std::string ZooKeeperErrorText(int rc) { return std::to_string(rc) + " (" + zerror(rc) + ")"; }

Status ZooKeeperSession::Open(const std::string& hosts, std::chrono::milliseconds session_timeout,
                              EventSink sink, std::unique_ptr<ZooKeeperSession>* out) {
  SetClientLogLevelOnce();
  std::unique_ptr<ZooKeeperSession> session(new ZooKeeperSession(std::move(sink)));
  session->zh_ = zookeeper_init2(hosts.c_str(), &ZooKeeperSession::OnSessionEvent,
                                 static_cast<int>(session_timeout.count()), nullptr, session.get(),
                                 0, &ForwardClientLog);
  if (session->zh_ == nullptr) {
    return Status(StatusCode::UNAVAILABLE,
                  "cannot create a ZooKeeper client for '" + hosts + "': " + std::strerror(errno));
  }
  *out = std::move(session);
  return Status::Ok();
}

ZooKeeperSession::~ZooKeeperSession() {
  // Joins the client's threads: no callback can be running or start after this.
  if (zh_ != nullptr) zookeeper_close(zh_);
}

clientid_t ZooKeeperSession::client_id() const { return *zoo_client_id(zh_); }

void ZooKeeperSession::OnSessionEvent(zhandle_t*, int type, int state, const char*, void* context) {
  if (type != ZOO_SESSION_EVENT) return;
  static_cast<ZooKeeperSession*>(context)->sink_(Event{Event::Kind::kState, state, {}});
}

void ZooKeeperSession::OnChildrenEvent(zhandle_t*, int type, int, const char* path, void* context) {
  // Session events reach every watcher too; OnSessionEvent already reports them.
  if (type != ZOO_CHILD_EVENT && type != ZOO_DELETED_EVENT) return;
  static_cast<ZooKeeperSession*>(context)->sink_(
      Event{Event::Kind::kChildrenChanged, 0, path != nullptr ? path : ""});
}

int ZooKeeperSession::CreateEphemeral(const std::string& path, const std::string& data) {
  return zoo_create(zh_, path.c_str(), data.data(), static_cast<int>(data.size()),
                    &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL, nullptr, 0);
}

int ZooKeeperSession::EnsurePersistentPath(const std::string& path) {
  Stat stat;
  int rc = zoo_exists(zh_, path.c_str(), 0, &stat);
  if (rc != ZNONODE) return rc;
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    const std::string prefix = path.substr(0, slash);
    rc = zoo_create(zh_, prefix.c_str(), nullptr, -1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, nullptr,
                    0);
    if (rc != ZOK && rc != ZNODEEXISTS) return rc;
    if (slash == std::string::npos) return ZOK;
  }
}

int ZooKeeperSession::Delete(const std::string& path, int version) {
  return zoo_delete(zh_, path.c_str(), version);
}

int ZooKeeperSession::Replace(const std::string& path, int version, const std::string& data) {
  zoo_op_t ops[2];
  zoo_op_result_t results[2];
  std::string created_path(path.size() + 1, '\0');
  zoo_delete_op_init(&ops[0], path.c_str(), version);
  zoo_create_op_init(&ops[1], path.c_str(), data.data(), static_cast<int>(data.size()),
                     &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL, created_path.data(),
                     static_cast<int>(created_path.size()));
  return zoo_multi(zh_, 2, ops, results);
}

int ZooKeeperSession::Get(const std::string& path, std::string* data, Stat* stat) {
  Stat local_stat;
  if (stat == nullptr) stat = &local_stat;
  if (data == nullptr) return zoo_exists(zh_, path.c_str(), 0, stat);
  // Provider records are far below 1 KiB; a larger node is read again at its real size (a
  // third time only if it grew in between).
  std::string buffer(1024, '\0');
  for (int attempt = 0; attempt < 3; ++attempt) {
    int length = static_cast<int>(buffer.size());
    const int rc = zoo_get(zh_, path.c_str(), 0, buffer.data(), &length, stat);
    if (rc != ZOK) return rc;
    if (stat->dataLength <= static_cast<int>(buffer.size())) {
      buffer.resize(length < 0 ? 0 : length);  // -1: the node holds no data at all
      *data = std::move(buffer);
      return ZOK;
    }
    buffer.assign(stat->dataLength, '\0');
  }
  return ZMARSHALLINGERROR;
}

int ZooKeeperSession::GetChildrenAndWatch(const std::string& path,
                                          std::vector<std::string>* children) {
  String_vector names{};
  const int rc =
      zoo_wget_children(zh_, path.c_str(), &ZooKeeperSession::OnChildrenEvent, this, &names);
  if (rc != ZOK) return rc;
  children->assign(names.data, names.data + names.count);
  deallocate_String_vector(&names);
  return ZOK;
}

}  // namespace ferry::registry
