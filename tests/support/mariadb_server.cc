#include "mariadb_server.h"

#include <mysql.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

#include "process.h"

namespace ferry::testsupport {
namespace {

using namespace std::chrono_literals;

constexpr auto kInstallTimeout = 180s;
constexpr auto kStartTimeout = 60s;
constexpr auto kStopGrace = 30s;

// Given to both mariadb-install-db (which passes them to its bootstrap mariadbd) and mariadbd,
// so the redo log the template was made with is the one the server expects. A small buffer
// pool and redo log keep start, shutdown and the datadir copy quick.
const std::vector<std::string> kInnoDbArgs = {"--innodb-buffer-pool-size=64M",
                                              "--innodb-log-file-size=8M"};

bool IsRoot() { return geteuid() == 0; }

// mariadbd and mariadb-install-db refuse to run as root unless told which user to be.
void AddUserArg(std::vector<std::string>& args) {
  if (IsRoot()) args.push_back("--user=root");
}

std::string QuoteIdentifier(const std::string& name) {
  std::string quoted = "`";
  for (char c : name) {
    quoted += c;
    if (c == '`') quoted += '`';
  }
  return quoted + "`";
}

// ---- The template datadir ------------------------------------------------------------------

std::vector<std::string> InstallDbArgs(const std::filesystem::path& datadir) {
  std::vector<std::string> args = {
      FERRY_MARIADB_INSTALL_DB, "--no-defaults", "--datadir=" + datadir.string(),
      // root@localhost, root@127.0.0.1, root@::1 without password
      "--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve"};
  args.insert(args.end(), kInnoDbArgs.begin(), kInnoDbArgs.end());
  AddUserArg(args);
  return args;
}

// FNV-1a: stable across processes and builds, unlike std::hash.
uint64_t Fnv1a(const std::string& text) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

// Names a template: changes when the user, the binaries (a package upgrade) or the install
// arguments change.
std::string TemplateKey() {
  std::string identity = std::to_string(geteuid());
  for (const char* binary : {FERRY_MARIADBD, FERRY_MARIADB_INSTALL_DB}) {
    struct stat st {};
    if (stat(binary, &st) == 0) {
      identity += "|" + std::string(binary) + ":" + std::to_string(st.st_size) + ":" +
                  std::to_string(st.st_mtim.tv_sec);
    }
  }
  for (const auto& arg : InstallDbArgs("")) identity += "|" + arg;
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(Fnv1a(identity)));
  return "mariadb-datadir-u" + std::to_string(geteuid()) + "-" + hex;
}

// Runs mariadb-install-db into <root>/data, logging to <root>/install.log.
::testing::AssertionResult RunInstallDb(const std::filesystem::path& root) {
  const std::filesystem::path log = root / "install.log";
  std::string error;
  const pid_t pid = internal::Spawn(InstallDbArgs(root / "data"), log, &error);
  if (pid < 0) return ::testing::AssertionFailure() << error;
  int status = 0;
  if (!internal::WaitExit(pid, kInstallTimeout, &status)) {
    internal::KillNow(pid);
    return ::testing::AssertionFailure() << "mariadb-install-db did not finish within 180 s; log:\n"
                                         << internal::FileTail(log);
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return ::testing::AssertionFailure()
           << "mariadb-install-db failed (" << internal::DescribeStatus(status) << "); log:\n"
           << internal::FileTail(log);
  }
  return ::testing::AssertionSuccess();
}

// A template made in a private temporary directory, for when the shared cache is unusable;
// removed when the process exits normally.
struct ProcessTemplate {
  std::filesystem::path root;
  ~ProcessTemplate() {
    std::error_code ignored;
    if (!root.empty()) std::filesystem::remove_all(root, ignored);
  }
};

std::filesystem::path CacheRoot() {
  if (const char* env = std::getenv("FERRY_FIXTURE_CACHE_DIR"); env != nullptr) return env;
  return FERRY_FIXTURE_CACHE_DIR;
}

// Half-made templates of processes that died while running mariadb-install-db.
void RemoveStaleStaging(const std::filesystem::path& cache, const std::string& key) {
  std::error_code ec;
  const auto now = std::filesystem::file_time_type::clock::now();
  for (const auto& entry : std::filesystem::directory_iterator(cache, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(key + ".tmp-", 0) != 0) continue;
    std::error_code time_ec;
    const auto modified = entry.last_write_time(time_ec);
    if (!time_ec && now - modified > std::chrono::hours(1)) {
      std::filesystem::remove_all(entry.path(), time_ec);
    }
  }
}

// The datadir to copy for every server. Made once: concurrent test processes (ctest -j) each
// build a staging copy and rename it into place; the first rename wins, the others use it.
::testing::AssertionResult TemplateDatadir(std::filesystem::path* datadir) {
  static std::mutex mu;
  static std::filesystem::path found;  // guarded by mu
  static ProcessTemplate process_template;
  std::lock_guard lock(mu);
  std::error_code ec;
  if (!found.empty() && std::filesystem::exists(found / "data" / "mysql", ec)) {
    *datadir = found / "data";
    return ::testing::AssertionSuccess();
  }
  const std::string key = TemplateKey();
  const std::filesystem::path cache = CacheRoot();
  if (!cache.empty()) {
    const std::filesystem::path final_root = cache / key;
    if (std::filesystem::exists(final_root / "data" / "mysql", ec)) {
      found = final_root;
      *datadir = found / "data";
      return ::testing::AssertionSuccess();
    }
    std::filesystem::create_directories(cache, ec);
    std::string staging = (cache / (key + ".tmp-XXXXXX")).string();
    if (!ec && access(cache.c_str(), W_OK) == 0 && mkdtemp(staging.data()) != nullptr) {
      RemoveStaleStaging(cache, key);
      if (auto result = RunInstallDb(staging); !result) {
        std::filesystem::remove_all(staging, ec);
        return result;
      }
      // rename() of a directory onto a non-empty one fails: another process won the race.
      if (std::rename(staging.c_str(), final_root.c_str()) != 0) {
        std::filesystem::remove_all(staging, ec);
      }
      if (std::filesystem::exists(final_root / "data" / "mysql", ec)) {
        found = final_root;
        *datadir = found / "data";
        return ::testing::AssertionSuccess();
      }
    }
  }
  // The cache is not writable (e.g. a build tree owned by another user): a private template.
  process_template.root = internal::MakeTempDir("ferry-mariadb-template-");
  if (process_template.root.empty()) {
    return ::testing::AssertionFailure() << "cannot create a temporary directory";
  }
  if (auto result = RunInstallDb(process_template.root); !result) return result;
  found = process_template.root;
  *datadir = found / "data";
  return ::testing::AssertionSuccess();
}

// ---- Client connections --------------------------------------------------------------------

struct MysqlCloser {
  void operator()(MYSQL* mysql) const { mysql_close(mysql); }
};
using Connection = std::unique_ptr<MYSQL, MysqlCloser>;

// Connects as root over TCP (never the socket). `database` may be null.
Connection Connect(uint16_t port, const char* database, std::string* error) {
  static std::once_flag library_init;
  std::call_once(library_init, [] { mysql_library_init(0, nullptr, nullptr); });
  Connection mysql(mysql_init(nullptr));
  if (!mysql) {
    *error = "mysql_init failed";
    return nullptr;
  }
  const unsigned int timeout_s = 5;
  const unsigned int io_timeout_s = 30;
  const unsigned int protocol = MYSQL_PROTOCOL_TCP;
  mysql_options(mysql.get(), MYSQL_OPT_CONNECT_TIMEOUT, &timeout_s);
  mysql_options(mysql.get(), MYSQL_OPT_READ_TIMEOUT, &io_timeout_s);
  mysql_options(mysql.get(), MYSQL_OPT_WRITE_TIMEOUT, &io_timeout_s);
  mysql_options(mysql.get(), MYSQL_OPT_PROTOCOL, &protocol);
  if (mysql_real_connect(mysql.get(), "127.0.0.1", "root", "", database, port, nullptr,
                         CLIENT_MULTI_STATEMENTS) == nullptr) {
    *error = "error " + std::to_string(mysql_errno(mysql.get())) + ": " + mysql_error(mysql.get());
    return nullptr;
  }
  return mysql;
}

// Runs `sql` (possibly several statements) and drains every result.
::testing::AssertionResult RunStatements(MYSQL* mysql, const std::string& sql) {
  auto failure = [&] {
    return ::testing::AssertionFailure()
           << "MariaDB error " << mysql_errno(mysql) << " (" << mysql_sqlstate(mysql)
           << "): " << mysql_error(mysql) << "\n  in: " << sql;
  };
  if (mysql_real_query(mysql, sql.data(), sql.size()) != 0) return failure();
  for (;;) {
    if (MYSQL_RES* result = mysql_store_result(mysql); result != nullptr) {
      mysql_free_result(result);
    } else if (mysql_field_count(mysql) != 0) {
      return failure();
    }
    const int next = mysql_next_result(mysql);
    if (next < 0) return ::testing::AssertionSuccess();
    if (next > 0) return failure();
  }
}

// The first column of the first row of `sql`'s result, "" when there is none.
std::string QueryValue(MYSQL* mysql, const std::string& sql) {
  std::string value;
  if (mysql_real_query(mysql, sql.data(), sql.size()) != 0) return value;
  if (MYSQL_RES* result = mysql_store_result(mysql); result != nullptr) {
    if (MYSQL_ROW row = mysql_fetch_row(result); row != nullptr && row[0] != nullptr) {
      value = row[0];
    }
    mysql_free_result(result);
  }
  return value;
}

}  // namespace

MariaDbServer::MariaDbServer(MariaDbServerOptions options)
    : options_(std::move(options)), dir_(internal::MakeTempDir("ferry-mariadb-")) {}

MariaDbServer::~MariaDbServer() {
  Stop();
  std::error_code ignored;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
}

::testing::AssertionResult MariaDbServer::Start() {
  if (dir_.empty()) return ::testing::AssertionFailure() << "cannot create a temporary directory";
  if (running()) return ::testing::AssertionSuccess();
  if (access(FERRY_MARIADBD, X_OK) != 0 || access(FERRY_MARIADB_INSTALL_DB, X_OK) != 0) {
    return ::testing::AssertionFailure()
           << "mariadbd or mariadb-install-db was not found when configuring (" FERRY_MARIADBD
              ", " FERRY_MARIADB_INSTALL_DB
              "); install Debian's mariadb-server package (scripts/lib/common.sh) and re-run "
              "cmake";
  }
  // sockaddr_un holds 108 bytes; mariadbd cannot start without its socket.
  if (socket_path().string().size() >= 100) {
    return ::testing::AssertionFailure()
           << "socket path too long: " << socket_path() << "; point TMPDIR at a shorter directory";
  }
  if (auto prepared = PrepareDatadir(); !prepared) return prepared;
  const bool port_chosen = port_ != 0;
  ::testing::AssertionResult result = ::testing::AssertionFailure();
  // A port picked here can be taken before the server binds it; then another one is tried.
  // A port kept from an earlier start is not given up: clients expect the server there.
  for (int attempt = 0; attempt < (port_chosen ? 1 : 3); ++attempt) {
    if (!port_chosen) port_ = internal::PickFreePort();
    bool port_taken = false;
    result = StartOnce(&port_taken);
    if (result || !port_taken) break;
  }
  if (!result && !port_chosen) port_ = 0;
  return result;
}

::testing::AssertionResult MariaDbServer::PrepareDatadir() {
  std::error_code ec;
  if (std::filesystem::exists(data_dir() / "mysql", ec)) return ::testing::AssertionSuccess();
  std::filesystem::path template_datadir;
  if (auto found = TemplateDatadir(&template_datadir); !found) return found;
  std::filesystem::remove_all(data_dir(), ec);
  std::filesystem::copy(template_datadir, data_dir(), std::filesystem::copy_options::recursive, ec);
  if (ec) {
    return ::testing::AssertionFailure()
           << "cannot copy " << template_datadir << " to " << data_dir() << ": " << ec.message();
  }
  std::filesystem::create_directories(dir_ / "tmp", ec);
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult MariaDbServer::StartOnce(bool* port_taken) {
  if (port_ == 0) return ::testing::AssertionFailure() << "no free port on 127.0.0.1";
  std::vector<std::string> args = {
      FERRY_MARIADBD,
      "--no-defaults",  // must come first: ignore /etc/mysql and ~/.my.cnf
      "--datadir=" + data_dir().string(),
      "--port=" + std::to_string(port_),
      "--bind-address=127.0.0.1",
      "--socket=" + socket_path().string(),
      "--pid-file=" + (dir_ / "mariadbd.pid").string(),
      "--log-error=" + log_path().string(),
      "--tmpdir=" + (dir_ / "tmp").string(),
      "--skip-log-bin",
      "--skip-name-resolve",
      // Committed data reaches the OS at every commit (so it survives Kill()), without fsync.
      "--innodb-flush-log-at-trx-commit=2",
      "--character-set-server=utf8mb4",
      "--collation-server=utf8mb4_general_ci",
  };
  args.insert(args.end(), kInnoDbArgs.begin(), kInnoDbArgs.end());
  AddUserArg(args);
  args.insert(args.end(), options_.extra_args.begin(), options_.extra_args.end());

  std::string error;
  const uint64_t log_start = internal::FileSize(log_path());
  pid_ = internal::Spawn(args, log_path(), &error);
  if (pid_ < 0) return ::testing::AssertionFailure() << error;

  const auto deadline = std::chrono::steady_clock::now() + kStartTimeout;
  std::string last_error;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (internal::Exited(pid_, &status)) {
      pid_ = -1;
      *port_taken = internal::LogShowsPortInUse(log_path(), log_start);
      return ::testing::AssertionFailure()
             << "mariadbd exited during startup on port " << port_ << " ("
             << internal::DescribeStatus(status) << "); log:\n"
             << internal::FileTail(log_path(), log_start);
    }
    if (Connection mysql = Connect(port_, nullptr, &last_error)) {
      // Another server that won the race for the port would answer too; ours has our socket.
      if (const std::string socket = QueryValue(mysql.get(), "SELECT @@socket");
          socket != socket_path().string()) {
        Stop();
        *port_taken = true;
        return ::testing::AssertionFailure()
               << "port " << port_ << " is taken by another MariaDB server (socket " << socket
               << ")";
      }
      auto created = RunStatements(
          mysql.get(), "CREATE DATABASE IF NOT EXISTS " + QuoteIdentifier(options_.database));
      if (!created) Stop();
      return created;
    }
    std::this_thread::sleep_for(100ms);
  }
  Stop();
  return ::testing::AssertionFailure() << "cannot log in to mariadbd on 127.0.0.1:" << port_
                                       << " within 60 s (last: " << last_error << "); log:\n"
                                       << internal::FileTail(log_path(), log_start);
}

void MariaDbServer::Stop() {
  if (!running()) return;
  internal::Terminate(pid_, kStopGrace);
  pid_ = -1;
}

void MariaDbServer::Kill() {
  if (!running()) return;
  internal::KillNow(pid_);
  pid_ = -1;
}

::testing::AssertionResult MariaDbServer::Restart() {
  Stop();
  return Start();
}

::testing::AssertionResult MariaDbServer::Execute(const std::string& sql) const {
  if (!running()) return ::testing::AssertionFailure() << "MariaDB is not running";
  std::string error;
  Connection mysql = Connect(port_, options_.database.c_str(), &error);
  if (!mysql) return ::testing::AssertionFailure() << "cannot connect: " << error;
  return RunStatements(mysql.get(), sql);
}

::testing::AssertionResult MariaDbServer::ResetDatabase() const {
  if (!running()) return ::testing::AssertionFailure() << "MariaDB is not running";
  std::string error;
  Connection mysql = Connect(port_, nullptr, &error);
  if (!mysql) return ::testing::AssertionFailure() << "cannot connect: " << error;
  const std::string name = QuoteIdentifier(options_.database);
  return RunStatements(mysql.get(),
                       "DROP DATABASE IF EXISTS " + name + "; CREATE DATABASE " + name);
}

}  // namespace ferry::testsupport
