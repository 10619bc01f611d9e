#include "ferry/registry/zookeeper_session.h"

#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstring>
#include <string_view>
#include <utility>

#include "ferry/framework/logging.h"

namespace ferry::registry {
namespace {

// The C client's own messages, already filtered to warnings and errors, go to Ferry's logger
// (stderr) instead of the client's default stream. While a server is down the client repeats
// the same connection error on every attempt; the session's users log the state changes that
// matter once, so these are kept at debug to leave the log readable.
void ForwardClientLog(const char* message) { Logger().debug("zookeeper client: {}", message); }

// The level is process-wide in the C client.
void SetClientLogLevelOnce() {
  static std::once_flag once;
  std::call_once(once, [] { zoo_set_debug_level(ZOO_LOG_LEVEL_WARN); });
}

// Everyone reads; the identities of the creating session ("auth": its digest user) do the
// rest. On the nodes whose children are providers or leases, and on those nodes themselves.
const ACL_vector* OwnedAcl() {
  static ACL entries[] = {{ZOO_PERM_READ, ZOO_ANYONE_ID_UNSAFE}, {ZOO_PERM_ALL, ZOO_AUTH_IDS}};
  static const ACL_vector acl{2, entries};
  return &acl;
}

// As OwnedAcl, and everyone may also add children: /ferry and a namespace hold the services of
// every team, whatever identity (if any) each one publishes with.
const ACL_vector* SharedAcl() {
  static ACL entries[] = {{ZOO_PERM_READ | ZOO_PERM_CREATE, ZOO_ANYONE_ID_UNSAFE},
                          {ZOO_PERM_ALL, ZOO_AUTH_IDS}};
  static const ACL_vector acl{2, entries};
  return &acl;
}

bool LetsEveryoneChange(const ACL_vector& acl) {
  for (int i = 0; i < acl.count; ++i) {
    const ACL& entry = acl.data[i];
    if (std::string_view(entry.id.scheme) == "world" && (entry.perms & ~ZOO_PERM_READ) != 0) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::string ZooKeeperErrorText(int rc) { return std::to_string(rc) + " (" + zerror(rc) + ")"; }

std::string ZooKeeperStateName(int state) {
  if (state == ZOO_CONNECTED_STATE) return "connected";
  if (state == ZOO_CONNECTING_STATE) return "connecting";
  if (state == ZOO_ASSOCIATING_STATE) return "associating";
  if (state == ZOO_EXPIRED_SESSION_STATE) return "session expired";
  if (state == ZOO_AUTH_FAILED_STATE) return "authentication failed";
  if (state == ZOO_NOTCONNECTED_STATE) return "not connected";
  return "state " + std::to_string(state);
}

ZooKeeperSession::ZooKeeperSession(ZooKeeperSessionOptions options, EventSink sink)
    : options_(std::move(options)),
      sink_(std::move(sink)),
      owned_acl_(options_.digest.empty() ? &ZOO_OPEN_ACL_UNSAFE : OwnedAcl()),
      shared_acl_(options_.digest.empty() ? &ZOO_OPEN_ACL_UNSAFE : SharedAcl()) {}

ZooKeeperSession::~ZooKeeperSession() { Close(); }

Status ZooKeeperSession::Open() {
  Close();
  SetClientLogLevelOnce();
  uint64_t generation = 0;
  {
    std::lock_guard lock(mu_);
    generation = ++generation_;
  }
  context_ = std::make_unique<HandleContext>(HandleContext{this, generation});
  zh_ = zookeeper_init2(options_.hosts.c_str(), &ZooKeeperSession::OnSessionWatch,
                        static_cast<int>(options_.session_timeout.count()), nullptr, context_.get(),
                        0, &ForwardClientLog);
  if (zh_ == nullptr) {
    const std::string error = std::strerror(errno);
    context_.reset();
    return Status(StatusCode::UNAVAILABLE,
                  "cannot create a ZooKeeper client for '" + options_.hosts + "': " + error);
  }
  if (!options_.digest.empty()) {
    // Kept by the handle and sent ahead of anything else on every connection it makes, so the
    // session is authenticated before its first request and again after each reconnect.
    const int rc = zoo_add_auth(zh_, "digest", options_.digest.data(),
                                static_cast<int>(options_.digest.size()), nullptr, nullptr);
    if (rc != ZOK) {
      Close();
      return Status(StatusCode::INTERNAL, "cannot authenticate to ZooKeeper " + options_.hosts +
                                              ": " + ZooKeeperErrorText(rc));
    }
  }
  return Status::Ok();
}

void ZooKeeperSession::Close() {
  zhandle_t* const zh = std::exchange(zh_, nullptr);
  {
    // First, so that anything the handle still reports while closing is stale.
    std::lock_guard lock(mu_);
    ++generation_;
    credentials_.reset();
    connected_handed_off_ = false;
  }
  // Joins the client's threads: no callback of this handle runs after it.
  if (zh != nullptr) zookeeper_close(zh);
  context_.reset();
}

bool ZooKeeperSession::IsCurrent(const Event& event) const {
  std::lock_guard lock(mu_);
  return event.generation == generation_;
}

bool ZooKeeperSession::WaitConnected(std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mu_);
  return handed_off_cv_.wait_for(lock, timeout, [this] { return connected_handed_off_; });
}

std::optional<clientid_t> ZooKeeperSession::credentials() const {
  std::lock_guard lock(mu_);
  return credentials_;
}

int64_t ZooKeeperSession::session_id() const {
  std::lock_guard lock(mu_);
  return credentials_ ? credentials_->client_id : 0;
}

std::chrono::milliseconds ZooKeeperSession::negotiated_timeout() const {
  std::lock_guard lock(mu_);
  return negotiated_timeout_;
}

void ZooKeeperSession::OnSessionWatch(zhandle_t* zh, int type, int state, const char*,
                                      void* context) {
  if (type != ZOO_SESSION_EVENT) return;
  const auto& handle = *static_cast<const HandleContext*>(context);
  handle.session->OnStateChange(
      zh, Event{.kind = Event::Kind::kState, .state = state, .generation = handle.generation});
}

void ZooKeeperSession::OnNodeWatch(zhandle_t*, int type, int, const char* path, void* context) {
  // Session events reach every watch too; OnSessionWatch reports them.
  Event::Kind kind;
  if (type == ZOO_CHILD_EVENT) {
    kind = Event::Kind::kChildrenChanged;
  } else if (type == ZOO_DELETED_EVENT) {
    kind = Event::Kind::kNodeDeleted;
  } else {
    return;
  }
  const auto& handle = *static_cast<const HandleContext*>(context);
  handle.session->sink_(
      Event{.kind = kind, .path = path != nullptr ? path : "", .generation = handle.generation});
}

void ZooKeeperSession::OnStateChange(zhandle_t* zh, const Event& event) {
  {
    std::lock_guard lock(mu_);
    if (event.generation == generation_) {
      connected_handed_off_ = false;
      if (event.state == ZOO_CONNECTED_STATE) {
        credentials_ = *zoo_client_id(zh);
        negotiated_timeout_ = std::chrono::milliseconds(zoo_recv_timeout(zh));
      } else if (event.state == ZOO_EXPIRED_SESSION_STATE || event.state == ZOO_AUTH_FAILED_STATE) {
        credentials_.reset();
      }
    }
  }
  sink_(event);
  if (event.state != ZOO_CONNECTED_STATE) return;
  {
    std::lock_guard lock(mu_);
    connected_handed_off_ = event.generation == generation_;
  }
  handed_off_cv_.notify_all();
}

int ZooKeeperSession::CreateEphemeral(const std::string& path, const std::string& data) {
  return zoo_create(zh_, path.c_str(), data.data(), static_cast<int>(data.size()), owned_acl_,
                    ZOO_EPHEMERAL, nullptr, 0);
}

int ZooKeeperSession::EnsurePersistentPath(const std::string& path) {
  Stat stat;
  int rc = zoo_exists(zh_, path.c_str(), 0, &stat);
  if (rc == ZOK) return options_.digest.empty() ? ZOK : RestrictIfOpen(path);
  if (rc != ZNONODE) return rc;
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    const std::string prefix = path.substr(0, slash);
    const bool last = slash == std::string::npos;
    rc = zoo_create(zh_, prefix.c_str(), nullptr, -1, last ? owned_acl_ : shared_acl_,
                    ZOO_PERSISTENT, nullptr, 0);
    if (rc == ZNODEEXISTS && last && !options_.digest.empty()) return RestrictIfOpen(path);
    if (rc != ZOK && rc != ZNODEEXISTS) return rc;
    if (last) return ZOK;
  }
}

int ZooKeeperSession::RestrictIfOpen(const std::string& path) {
  ACL_vector acl{};
  Stat stat;
  int rc = zoo_get_acl(zh_, path.c_str(), &acl, &stat);
  if (rc != ZOK) return rc;
  const bool open = LetsEveryoneChange(acl);
  deallocate_ACL_vector(&acl);
  if (!open) return ZOK;
  rc = zoo_set_acl(zh_, path.c_str(), stat.aversion, owned_acl_);
  if (rc == ZOK) {
    Logger().info("zookeeper: {} let everyone change its children; now only this identity may",
                  path);
  } else if (rc == ZNOAUTH) {
    // Someone else's to administer: use it as it is rather than fail.
    Logger().warn(
        "zookeeper: {} lets everyone change its children, and this identity may not "
        "restrict it: {}",
        path, ZooKeeperErrorText(rc));
    rc = ZOK;
  }
  return rc;
}

int ZooKeeperSession::Delete(const std::string& path, int version) {
  return zoo_delete(zh_, path.c_str(), version);
}

int ZooKeeperSession::Replace(const std::string& path, int version, const std::string& data) {
  zoo_op_t ops[2];
  zoo_op_result_t results[2];
  std::string created_path(path.size() + 1, '\0');
  zoo_delete_op_init(&ops[0], path.c_str(), version);
  zoo_create_op_init(&ops[1], path.c_str(), data.data(), static_cast<int>(data.size()), owned_acl_,
                     ZOO_EPHEMERAL, created_path.data(), static_cast<int>(created_path.size()));
  return zoo_multi(zh_, 2, ops, results);
}

int ZooKeeperSession::Get(const std::string& path, std::string* data, Stat* stat) {
  Stat local_stat;
  if (stat == nullptr) stat = &local_stat;
  if (data == nullptr) return zoo_exists(zh_, path.c_str(), 0, stat);
  // Ferry's nodes hold far below 1 KiB; a larger node is read again at its real size (a third
  // time only if it grew in between).
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

int ZooKeeperSession::GetChildren(const std::string& path, std::vector<std::string>* children) {
  return ListChildren(path, /*watch=*/false, children);
}

int ZooKeeperSession::GetChildrenAndWatch(const std::string& path,
                                          std::vector<std::string>* children) {
  return ListChildren(path, /*watch=*/true, children);
}

int ZooKeeperSession::ListChildren(const std::string& path, bool watch,
                                   std::vector<std::string>* children) {
  String_vector names{};
  const int rc = zoo_wget_children(
      zh_, path.c_str(), watch ? &ZooKeeperSession::OnNodeWatch : nullptr, context_.get(), &names);
  if (rc != ZOK) return rc;
  children->assign(names.data, names.data + names.count);
  deallocate_String_vector(&names);
  return ZOK;
}

int ZooKeeperSession::ExistsAndWatch(const std::string& path, Stat* stat) {
  return zoo_wexists(zh_, path.c_str(), &ZooKeeperSession::OnNodeWatch, context_.get(), stat);
}

}  // namespace ferry::registry
