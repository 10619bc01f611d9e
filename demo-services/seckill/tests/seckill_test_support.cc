#include "seckill_test_support.h"

#include <hiredis.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/reflection.h>

#include <map>
#include <mutex>

#include "ferry/codec/extension_registry.h"
#include "ferry/framework/filter.h"
#include "ferry/plugins/user_token.h"
#include "shared_servers_backend.h"

namespace ferry::seckill::testing {

namespace {

using namespace std::chrono_literals;

// Who bought what, process-wide: request ids and order numbers are unique across tests.
struct BuyerBook {
  std::mutex mu;
  std::map<std::string, std::string> by_request;
  std::map<int64_t, std::string> by_order;
};

BuyerBook& Book() {
  static BuyerBook* const book = new BuyerBook();
  return *book;
}

std::string FieldText(const google::protobuf::Message& m, const char* name) {
  const auto* field = m.GetDescriptor()->FindFieldByName(name);
  if (field == nullptr || field->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_STRING) {
    return "";
  }
  return m.GetReflection()->GetString(m, field);
}

int64_t FieldInt(const google::protobuf::Message& m, const char* name) {
  const auto* field = m.GetDescriptor()->FindFieldByName(name);
  if (field == nullptr || field->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_INT64) {
    return 0;
  }
  return m.GetReflection()->GetInt64(m, field);
}

// The test proxies' front end (see AsUser).
class TestBuyerFilter final : public ClientFilter {
 public:
  void Configure(config::ConfigReader&) override {}
  Status OnCall(ClientCall& call) override {
    const std::string attachment(plugins::kUserTokenAttachment);
    if (call.options.attachments.count(attachment) != 0) return Status::Ok();
    std::string user = FieldText(call.request, "user_id");
    const std::string request_id = FieldText(call.request, "request_id");
    const int64_t order_no = FieldInt(call.request, "order_no");
    {
      BuyerBook& book = Book();
      std::lock_guard lock(book.mu);
      if (!user.empty() && !request_id.empty()) book.by_request[request_id] = user;
      if (user.empty() && !request_id.empty() && book.by_request.count(request_id) != 0) {
        user = book.by_request[request_id];
      }
      if (user.empty() && order_no != 0 && book.by_order.count(order_no) != 0) {
        user = book.by_order[order_no];
      }
    }
    if (!user.empty()) call.options.attachments = AsUser(user).attachments;
    return Status::Ok();
  }
  bool ObservesDone() const override { return false; }
};

void RegisterTestBuyerFilter(ExtensionRegistry& registry) {
  registry.Register<ClientFilter>("test_buyer", [] { return std::make_shared<TestBuyerFilter>(); });
}

FERRY_REGISTER_BUILTIN_EXTENSIONS(RegisterTestBuyerFilter)

}  // namespace

std::string BuyerFiltersYaml() {
  return std::string("{name: user_token, keys: [{id: ") + kUserTokenKeyId +
         ", secret: " + kUserTokenSecret +
         "}], exempt: [ferry.seckill.SeckillService/CreateActivity, "
         "ferry.seckill.SeckillService/Preheat, ferry.seckill.SeckillService/GetActivity, "
         "ferry.seckill.SeckillService/Refund, ferry.seckill.SeckillService/Reconcile, "
         "ferry.seckill.SeckillService/NotifyPayment, ferry.seckill.SeckillService/Blacklist]}";
}

CallOptions AsUser(const std::string& user) {
  const int64_t now_s = WallMs() / 1000;
  CallOptions options;
  options.attachments[std::string(plugins::kUserTokenAttachment)] =
      plugins::MakeUserToken(kUserTokenKeyId, kUserTokenSecret, user, now_s, now_s + 3600);
  return options;
}

void RememberOrderOf(int64_t order_no, const std::string& user) {
  BuyerBook& book = Book();
  std::lock_guard lock(book.mu);
  book.by_order[order_no] = user;
}

int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

namespace {

void QuickJobs(SeckillConfig* config) {
  config->writer_interval_ms = 5;
  config->closer_interval_ms = 20;
  config->reconcile_interval_ms = 0;  // only on request: the tests read its report
  config->redrive_after_ms = 3000;
}

}  // namespace

std::string ServerYaml(const SeckillConfig& c, int worker_id, int writer_threads) {
  std::ostringstream y;
  y << "log:\n  level: warn\n"
    << "server:\n  listen: 127.0.0.1:0\n  business_pool:\n    threads: 4\n"
    << "    queue_capacity: 4096\n"
    << "  filters:\n    - " << BuyerFiltersYaml() << "\n"
    << "service:\n  backend: redis+mariadb\n"
    << "  redis:\n    host: " << c.redis_host << "\n    port: " << c.redis_port
    << "\n    timeout_ms: 5000\n"
    << "  mariadb:\n    host: " << c.mariadb.host << "\n    port: " << c.mariadb.port
    << "\n    user: " << c.mariadb.user << "\n    database: " << c.mariadb.database
    << "\n    timeout_ms: 20000\n";
  if (worker_id >= 0) y << "  idgen:\n    worker_id: " << worker_id << "\n";
  y << "  order_writer:\n    threads: " << writer_threads
    << "\n    batch: 16\n    claim_idle_ms: 500\n    max_deliveries: 5\n"
    << "    max_dead_letters: 1000\n    trim_acknowledged: true\n"
    << "  reconciler:\n    interval_ms: 0\n    redrive_after_ms: 3000\n    redrive_batch: 50\n"
    << "    redrive_lease_ms: 10000\n";
  return y.str();
}

SeckillConfig RedisMariaDbConfig(const std::string& database) {
  SeckillConfig config;
  storage::testing::UseSharedServers(database, &config);
  config.worker_id = 1;
  QuickJobs(&config);
  return config;
}

SeckillConfig EmbeddedConfig(const std::filesystem::path& dir) {
  SeckillConfig config;
  config.backend = "embedded";
  config.sqlite_path = (dir / "seckill.db").string();
  config.sqlite_connections = 4;
  config.worker_id = 1;
  QuickJobs(&config);
  return config;
}

namespace {

// The options of the proxies of these tests, whose front end supplies buyers' tokens.
ClientOptions BuyerClientOptions(std::chrono::milliseconds timeout) {
  ClientOptions options = testsupport::LoopbackClientOptions(timeout);
  options.filters = {FilterSpec::FromYaml("test_buyer", "{name: test_buyer}")};
  return options;
}

}  // namespace

void InProcessProvider::Start(const SeckillConfig& config) {
  Start(config, {FilterSpec::FromYaml("user_token", BuyerFiltersYaml())});
}

void InProcessProvider::Start(const SeckillConfig& config, std::vector<FilterSpec> filters) {
  std::unique_ptr<SeckillApp> app;
  Status s = SeckillApp::Create(config, "", &app);
  ASSERT_TRUE(s.ok()) << s;
  Serve(std::move(app), {.filters = std::move(filters)}, BuyerClientOptions(15s));
}

std::unique_ptr<SeckillServiceProxy> NewProxy(uint16_t port, std::chrono::milliseconds timeout) {
  auto channel = testsupport::LoopbackChannel(port, BuyerClientOptions(timeout));
  return channel ? std::make_unique<SeckillServiceProxy>(channel) : nullptr;
}

CreateActivityRequest ActivityRequest(const ActivitySpec& spec) {
  const int64_t now = WallMs();
  CreateActivityRequest request;
  Activity* a = request.mutable_activity();
  a->set_sku_id(spec.sku_id);
  a->set_name("test sale");
  a->set_stock(spec.stock);
  a->set_start_time_ms(now + spec.start_offset_ms);
  a->set_end_time_ms(now + spec.end_offset_ms);
  a->set_price_cents(spec.price_cents);
  a->set_pay_timeout_s(spec.pay_timeout_s);
  return request;
}

int64_t CreateActivity(SeckillServiceProxy& proxy, const ActivitySpec& spec, bool preheat) {
  auto created = proxy.CreateActivity(ActivityRequest(spec));
  EXPECT_TRUE(created.ok()) << created.status();
  if (!created.ok()) return 0;
  const int64_t id = created->activity_id();
  EXPECT_GT(id, 0);
  if (preheat) {
    auto opened = proxy.Preheat(PreheatOf(id));
    EXPECT_TRUE(opened.ok()) << opened.status();
    if (!opened.ok()) return 0;
    EXPECT_EQ(opened->cached_stock(), spec.stock);
  }
  return id;
}

PreheatRequest PreheatOf(int64_t activity_id, bool force) {
  PreheatRequest request;
  request.set_activity_id(activity_id);
  request.set_force(force);
  return request;
}

PurchaseRequest Purchase(int64_t activity_id, int64_t sku_id, const std::string& user,
                         const std::string& request_id) {
  PurchaseRequest request;
  request.set_activity_id(activity_id);
  request.set_sku_id(sku_id);
  request.set_user_id(user);
  request.set_request_id(request_id);
  return request;
}

int64_t WaitCreated(SeckillServiceProxy& proxy, int64_t activity_id, int64_t sku_id,
                    const std::string& request_id, std::chrono::milliseconds timeout) {
  GetResultRequest request;
  request.set_request_id(request_id);
  request.set_activity_id(activity_id);
  request.set_sku_id(sku_id);
  int64_t order_no = 0;
  std::string last;
  const bool created = Eventually(
      [&] {
        auto result = proxy.GetResult(request);
        if (!result.ok()) {
          last = result.status().ToString();
          return false;
        }
        last = ResultState_Name(result->state()) + " " + result->reason();
        if (result->state() == FAILED) return true;  // final; reported below
        if (result->state() != CREATED) return false;
        order_no = result->order_no();
        return true;
      },
      timeout);
  EXPECT_TRUE(created && order_no > 0) << "request " << request_id << ": " << last;
  if (order_no > 0) {
    BuyerBook& book = Book();
    std::lock_guard lock(book.mu);
    if (book.by_request.count(request_id) != 0)
      book.by_order[order_no] = book.by_request[request_id];
  }
  return order_no;
}

ReconcileResponse Settle(SeckillServiceProxy& proxy, int64_t activity_id,
                         const std::function<bool(const ReconcileResponse&)>& done,
                         std::chrono::milliseconds timeout) {
  ActivityRef ref;
  ref.set_activity_id(activity_id);
  ReconcileResponse report;
  std::string last;
  const bool settled = Eventually(
      [&] {
        auto result = proxy.Reconcile(ref);
        if (!result.ok()) {
          last = result.status().ToString();
          return false;
        }
        report = *result;
        last = report.ShortDebugString();
        return report.reservations_without_order() == 0 && done(report);
      },
      timeout, 50ms);
  EXPECT_TRUE(settled) << "activity " << activity_id << " did not settle: " << last;
  return report;
}

}  // namespace ferry::seckill::testing
