// Real seckill-server processes: the order consumer SIGKILLed while the stream still holds
// unread and unacknowledged events, then restarted (every reservation becomes exactly one
// order), and a provider that only reserves while another process writes the orders.
#include "seckill_failure_fixture.h"

namespace ferry::seckill::failure_test {
namespace {

// --- the order consumer killed -------------------------------------------------------------

// seckill-server as a child process; SIGKILLed when this object goes away.
class SeckillServerProcess {
 public:
  ~SeckillServerProcess() { Kill(); }

  // Starts it with `config_yaml` and waits for its listening line. Fatal failure otherwise.
  void Start(const std::filesystem::path& dir, const std::string& name,
             const std::string& config_yaml) {
    const std::filesystem::path config = dir / (name + ".yaml");
    std::ofstream(config) << config_yaml;
    log_ = dir / (name + ".log");
    const int log_fd = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    ASSERT_GE(log_fd, 0);
    const std::string config_path = config.string();
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    ASSERT_GE(pid_, 0);
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
      ::dup2(log_fd, STDOUT_FILENO);
      ::dup2(log_fd, STDERR_FILENO);
      ::execl(SECKILL_SERVER_BINARY, "seckill-server", "--config", config_path.c_str(),
              static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(log_fd);
    const bool ready = Eventually(
        [&] {
          const std::string text = Log();
          const size_t at = text.find("seckill-server listening on ");
          if (at == std::string::npos) return !Alive();
          const size_t colon = text.find(':', at + 28);
          const size_t end = text.find('\n', at);
          if (colon == std::string::npos || end == std::string::npos) return false;
          port_ = static_cast<uint16_t>(std::stoi(text.substr(colon + 1, end - colon - 1)));
          return true;
        },
        30s);
    ASSERT_TRUE(ready && port_ != 0) << "seckill-server did not start:\n" << Log();
  }

  void Kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

  bool Alive() {
    if (pid_ <= 0) return false;
    if (::waitpid(pid_, nullptr, WNOHANG) == 0) return true;
    pid_ = -1;  // exited (and reaped)
    return false;
  }
  uint16_t port() const { return port_; }
  std::string Log() const {
    std::ifstream in(log_);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

 private:
  std::filesystem::path log_;
  pid_t pid_ = -1;
  uint16_t port_ = 0;
};

TEST_F(SeckillFailureTest, TheOrderConsumerKilledMidStreamLosesAndDuplicatesNothing) {
  constexpr int64_t kStock = 200;
  constexpr int kBuyers = 150;
  TempDir dir;

  SeckillServerProcess first;
  ASSERT_NO_FATAL_FAILURE(first.Start(dir.path(), "first", ServerYaml(config_, 11)));
  auto proxy = NewProxy(first.port());
  ASSERT_NE(proxy, nullptr);
  const int64_t id = CreateActivity(*proxy, {.sku_id = kSku, .stock = kStock});
  ASSERT_GT(id, 0);

  // Hold the activity's stock row, so the consumer's first transaction waits on it: the burst
  // below stays in the stream, part delivered to the consumer and unacknowledged, part unread.
  std::unique_ptr<storage::SqlConnection> lock;
  Status s = storage::MariaDbConnection::Open(config_.mariadb, &lock);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_TRUE(lock->Begin().ok());
  std::vector<storage::SqlRow> rows;
  s = lock->Query(
      "SELECT remaining FROM seckill_stock WHERE activity_id = ? AND sku_id = ?"
      " FOR UPDATE",
      {id, kSku}, &rows);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(rows.size(), 1u);

  // The burst, with duplicates: retries of a request and second requests of a user.
  std::vector<std::pair<std::string, std::string>> calls;
  for (int i = 0; i < kBuyers; ++i) {
    calls.emplace_back("k-" + std::to_string(i), "k-" + std::to_string(i) + "-r");
  }
  for (int i = 0; i < kBuyers; i += 10) {
    calls.emplace_back("k-" + std::to_string(i), "k-" + std::to_string(i) + "-r");
    calls.emplace_back("k-" + std::to_string(i), "k-" + std::to_string(i) + "-again");
  }
  std::vector<PurchaseAnswer> answers(calls.size(), PURCHASE_ANSWER_UNSPECIFIED);
  std::atomic<size_t> next{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 16; ++t) {
    callers.emplace_back([&] {
      for (size_t i = next++; i < calls.size(); i = next++) {
        auto r = proxy->Purchase(Purchase(id, kSku, calls[i].first, calls[i].second));
        EXPECT_TRUE(r.ok()) << r.status();
        if (r.ok()) answers[i] = r->answer();
      }
    });
  }
  for (auto& caller : callers) caller.join();
  std::set<std::string> accepted;
  for (size_t i = 0; i < calls.size(); ++i) {
    if (answers[i] == ACCEPTED) accepted.insert(calls[i].second);
  }
  ASSERT_EQ(accepted.size(), static_cast<size_t>(kBuyers));

  // The consumer has taken a batch it cannot finish.
  const std::unique_ptr<ReservationCache> cache = ConnectCache();
  ASSERT_NE(cache, nullptr);
  CacheSnapshot snapshot;
  ASSERT_TRUE(Eventually(
      [&] { return cache->Snapshot(id, kSku, &snapshot).ok() && snapshot.queue_pending > 0; }, 10s))
      << first.Log();
  EXPECT_EQ(snapshot.reservations, kBuyers);
  EXPECT_LT(snapshot.queue_pending, kBuyers);  // and more remain unread

  // Accepted but not written yet.
  GetResultRequest pending;
  const std::string& request_id = *accepted.begin();
  pending.set_request_id(request_id);
  pending.set_activity_id(id);
  pending.set_sku_id(kSku);
  pending.set_user_id(request_id.substr(0, request_id.size() - 2));  // "<user>-r"
  auto state = proxy->GetResult(pending);
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_EQ(state->state(), PENDING);
  // The cache keeps pending requests per activity: without it there is nothing to look up.
  pending.clear_activity_id();
  pending.clear_sku_id();
  state = proxy->GetResult(pending);
  EXPECT_EQ(state.status().code(), StatusCode::NOT_FOUND) << state.status();
  EXPECT_NE(state.status().message().find("activity_id"), std::string::npos) << state.status();

  first.Kill();
  lock->Rollback();
  lock.reset();
  StoreCounts at_kill;
  {
    // Nothing was written while the row was held.
    HandBuiltProvider look(config_);
    ASSERT_TRUE(look.store().Count(id, kSku, &at_kill).ok());
    EXPECT_EQ(at_kill.orders_unpaid, 0);
  }

  SeckillServerProcess second;
  ASSERT_NO_FATAL_FAILURE(second.Start(dir.path(), "second", ServerYaml(config_, 12)));
  proxy = NewProxy(second.port());
  ASSERT_NE(proxy, nullptr);
  const ReconcileResponse report = Settle(
      *proxy, id,
      [&](const ReconcileResponse& r) {
        return r.orders_unpaid() + r.orders_paid() + r.orders_cancelled() >= kBuyers;
      },
      40s);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.reservations(), kBuyers);
  EXPECT_EQ(report.reservations_without_order(), 0);
  EXPECT_EQ(report.orders_unpaid(), kBuyers);
  EXPECT_EQ(report.users_with_two_orders(), 0);
  EXPECT_EQ(report.database_stock(), kStock - kBuyers);
  EXPECT_EQ(report.cache_stock(), kStock - kBuyers);
  std::set<int64_t> order_numbers;
  for (const std::string& request : accepted) {
    const int64_t order_no = WaitCreated(*proxy, id, kSku, request, 5s);
    EXPECT_TRUE(order_numbers.insert(order_no).second) << "order " << order_no << " twice";
  }
  // The stream is drained: nothing left pending for anyone.
  EXPECT_TRUE(Eventually(
      [&] { return cache->Snapshot(id, kSku, &snapshot).ok() && snapshot.queue_pending == 0; },
      10s))
      << "still pending: " << snapshot.queue_pending;
  // And trimmed: only the last delivered entry is left, marking the group's position.
  int64_t length = -1;
  EXPECT_TRUE(Eventually(
      [&] {
        return (length = RedisInt({"XLEN", ActivityKey(id, "orders")})) <= 1;
      },
      10s))
      << "stream length " << length;
  second.Kill();
}

// order_writer.threads: 0 makes a provider that only reserves; the orders are written by
// another seckill-server (the order consumer), which can then be stopped and started alone.
TEST_F(SeckillFailureTest, AProviderWithoutOrderWritersLeavesTheOrdersToTheConsumer) {
  constexpr int64_t kStock = 20;
  constexpr int kBuyers = 12;
  TempDir dir;
  SeckillServerProcess provider;
  ASSERT_NO_FATAL_FAILURE(provider.Start(dir.path(), "reserving-only", ServerYaml(config_, 21, 0)));
  auto proxy = NewProxy(provider.port());
  ASSERT_NE(proxy, nullptr);
  const int64_t id = CreateActivity(*proxy, {.sku_id = kSku, .stock = kStock});
  ASSERT_GT(id, 0);
  std::vector<std::string> accepted;
  for (int i = 0; i < kBuyers; ++i) {
    const std::string user = "c-" + std::to_string(i);
    auto r = proxy->Purchase(Purchase(id, kSku, user, user + "-r"));
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_EQ(r->answer(), ACCEPTED);
    accepted.push_back(user + "-r");
  }

  // Nobody reads the queue: every event stays undelivered (a writer would take them within
  // milliseconds).
  const std::unique_ptr<ReservationCache> cache = ConnectCache();
  ASSERT_NE(cache, nullptr);
  CacheSnapshot snapshot;
  EXPECT_FALSE(Eventually(
      [&] {
        return !cache->Snapshot(id, kSku, &snapshot).ok() || snapshot.queue_pending > 0 ||
               snapshot.queue_undelivered < kBuyers;
      },
      1500ms))
      << "pending " << snapshot.queue_pending << ", undelivered " << snapshot.queue_undelivered;
  GetResultRequest pending;
  pending.set_request_id(accepted.front());
  pending.set_activity_id(id);
  pending.set_sku_id(kSku);
  pending.set_user_id("c-0");
  auto state = proxy->GetResult(pending);
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_EQ(state->state(), PENDING);

  SeckillServerProcess consumer;
  ASSERT_NO_FATAL_FAILURE(consumer.Start(dir.path(), "consumer", ServerYaml(config_, 22, 1)));
  const ReconcileResponse report = Settle(
      *proxy, id, [&](const ReconcileResponse& r) { return r.orders_unpaid() >= kBuyers; }, 20s);
  EXPECT_TRUE(report.invariants_hold()) << report.ShortDebugString();
  EXPECT_EQ(report.orders_unpaid(), kBuyers);
  EXPECT_EQ(report.database_stock(), kStock - kBuyers);
  for (const std::string& request : accepted)
    EXPECT_GT(WaitCreated(*proxy, id, kSku, request, 5s), 0);
  consumer.Kill();
  provider.Kill();
}

}  // namespace
}  // namespace ferry::seckill::failure_test
