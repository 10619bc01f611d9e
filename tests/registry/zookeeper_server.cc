#include "zookeeper_server.h"

#include "process.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <fstream>
#include <mutex>
#include <thread>
#include <vector>

namespace ferry::testsupport {
namespace {

using namespace std::chrono_literals;
using internal::Exited;
using internal::PickFreePort;

// Tests that steal sessions make the C client complain on purpose; keep the output readable.
void DiscardClientLog(const char*) {}

}  // namespace

ZooKeeperServer::ZooKeeperServer() : dir_(internal::MakeTempDir("ferry-zk-")) {}

ZooKeeperServer::~ZooKeeperServer() {
  Stop();
  std::error_code ignored;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
}

::testing::AssertionResult ZooKeeperServer::Start() {
  if (dir_.empty()) return ::testing::AssertionFailure() << "cannot create a temporary directory";
  if (running()) return ::testing::AssertionSuccess();
  const bool port_chosen = port_ != 0;
  ::testing::AssertionResult result = ::testing::AssertionFailure();
  for (int attempt = 0; attempt < (port_chosen ? 1 : 3); ++attempt) {
    if (!port_chosen) port_ = PickFreePort();
    result = StartOnce();
    if (result) break;
  }
  return result;
}

::testing::AssertionResult ZooKeeperServer::StartOnce() {
  if (access(FERRY_JAVA, X_OK) != 0 ||
      std::string(FERRY_ZOOKEEPER_CLASSPATH).find("NOTFOUND") != std::string::npos) {
    return ::testing::AssertionFailure()
           << "java or the ZooKeeper jars were not found when configuring; install Debian's "
              "zookeeper package (scripts/lib/common.sh) and re-run cmake";
  }
  std::filesystem::create_directories(dir_ / "data");
  {
    // Short ticks keep session expiry quick; no admin web server (it would take port 8080);
    // no fsync, since the tests only ever kill the process, never the machine.
    std::ofstream cfg(dir_ / "zoo.cfg");
    cfg << "tickTime=250\n"
        << "dataDir=" << (dir_ / "data").string() << "\n"
        << "clientPort=" << port_ << "\n"
        << "clientPortAddress=127.0.0.1\n"
        << "minSessionTimeout=1000\nmaxSessionTimeout=60000\n"
        << "admin.enableServer=false\n"
        << "4lw.commands.whitelist=ruok,srvr\n"
        << "forceSync=no\npreAllocSize=1024\n";
  }
  const std::string cfg_path = (dir_ / "zoo.cfg").string();
  const std::string log_file = log_path().string();
  std::vector<std::string> args = {FERRY_JAVA,
                                   "-Xmx128m",
                                   "-XX:+UseSerialGC",
                                   "-XX:TieredStopAtLevel=1",
                                   "-XX:-UsePerfData",
                                   "-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
                                   "-cp",
                                   FERRY_ZOOKEEPER_CLASSPATH,
                                   "org.apache.zookeeper.server.ZooKeeperServerMain",
                                   cfg_path};
  std::string error;
  pid_ = internal::Spawn(args, log_file, &error);
  if (pid_ < 0) {
    pid_ = -1;
    return ::testing::AssertionFailure() << "cannot start ZooKeeper: " << error;
  }

  // A JVM on a busy two-core machine can take many seconds to come up.
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (std::chrono::steady_clock::now() < deadline) {
    if (Exited(pid_)) {
      pid_ = -1;
      return ::testing::AssertionFailure()
             << "ZooKeeper exited during startup on port " << port_ << "; log:\n"
             << LogTail();
    }
    if (AnswersRuok()) return ::testing::AssertionSuccess();
    std::this_thread::sleep_for(50ms);
  }
  Stop();
  return ::testing::AssertionFailure()
         << "ZooKeeper did not answer ruok on port " << port_ << " within 30 s; log:\n"
         << LogTail();
}

uint16_t ZooKeeperServer::ChoosePort() {
  if (port_ == 0) port_ = PickFreePort();
  return port_;
}

void ZooKeeperServer::Stop() {
  if (!running()) return;
  internal::Terminate(pid_, 10s);
  pid_ = -1;
}

void ZooKeeperServer::Pause() {
  if (running()) kill(pid_, SIGSTOP);
}

void ZooKeeperServer::Resume() {
  if (running()) kill(pid_, SIGCONT);
}

bool ZooKeeperServer::AnswersRuok() const {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  timeval timeout{.tv_sec = 1, .tv_usec = 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port_);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string reply;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      send(fd, "ruok", 4, MSG_NOSIGNAL) == 4) {
    char buffer[16];
    ssize_t n = 0;
    while (reply.size() < 4 && (n = recv(fd, buffer, sizeof(buffer), 0)) > 0) {
      reply.append(buffer, n);
    }
  }
  close(fd);
  return reply == "imok";
}

std::string ZooKeeperServer::LogTail() const { return internal::FileTail(log_path()); }

struct RawZooKeeperClient::SessionEvents {
  std::mutex mu;
  std::condition_variable changed;
  int state = 0;
};

void RawZooKeeperClient::OnSessionEvent(zhandle_t*, int type, int state, const char*,
                                        void* context) {
  if (type != ZOO_SESSION_EVENT) return;
  auto* events = static_cast<SessionEvents*>(context);
  {
    std::lock_guard lock(events->mu);
    events->state = state;
  }
  events->changed.notify_all();
}

RawZooKeeperClient::RawZooKeeperClient(const std::string& hosts, const clientid_t* session)
    : events_(std::make_unique<SessionEvents>()) {
  zh_ = zookeeper_init2(hosts.c_str(), &RawZooKeeperClient::OnSessionEvent, 10000, session,
                        events_.get(), 0, &DiscardClientLog);
  if (zh_ == nullptr) return;
  std::unique_lock lock(events_->mu);
  events_->changed.wait_for(lock, 10s, [&] {
    return events_->state == ZOO_CONNECTED_STATE || events_->state == ZOO_EXPIRED_SESSION_STATE;
  });
  state_ = events_->state;
}

RawZooKeeperClient::~RawZooKeeperClient() {
  if (zh_ != nullptr) zookeeper_close(zh_);
}

::testing::AssertionResult ExpireSession(const std::string& hosts, const clientid_t& session,
                                         const std::function<void()>& while_joined) {
  bool ran = false;
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  int attempts = 0;
  for (; std::chrono::steady_clock::now() < deadline; ++attempts) {
    RawZooKeeperClient joiner(hosts, &session);
    if (joiner.expired()) return ::testing::AssertionSuccess();
    if (!joiner.connected()) {
      return ::testing::AssertionFailure() << "cannot join the session at " << hosts;
    }
    if (while_joined && !ran) {
      ran = true;
      while_joined();
    }
  }
  return ::testing::AssertionFailure()
         << "session " << std::hex << session.client_id << std::dec << " survived " << attempts
         << " attempts in 30 s to expire it";
}

int RawZooKeeperClient::Create(const std::string& path, const std::string& data, int mode) {
  for (size_t slash = path.find('/', 1); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    zoo_create(zh_, path.substr(0, slash).c_str(), nullptr, -1, &ZOO_OPEN_ACL_UNSAFE,
               ZOO_PERSISTENT, nullptr, 0);
  }
  return zoo_create(zh_, path.c_str(), data.data(), static_cast<int>(data.size()),
                    &ZOO_OPEN_ACL_UNSAFE, mode, nullptr, 0);
}

int RawZooKeeperClient::Get(const std::string& path, Stat* stat, std::string* data) {
  if (data == nullptr) return zoo_exists(zh_, path.c_str(), 0, stat);
  std::string buffer(64 * 1024, '\0');
  int length = static_cast<int>(buffer.size());
  const int rc = zoo_get(zh_, path.c_str(), 0, buffer.data(), &length, stat);
  if (rc == ZOK) data->assign(buffer.data(), length < 0 ? 0 : length);
  return rc;
}

}  // namespace ferry::testsupport
