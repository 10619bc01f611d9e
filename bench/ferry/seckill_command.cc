#include "seckill_command.h"

#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "ferry/bench/flag_parser.h"
#include "seckill_sale.h"
#include "window_flags.h"

namespace ferry::bench {
namespace {

constexpr std::string_view kProgram = kSeckillProgram;
constexpr std::string_view kSeckillService = "ferry.seckill.SeckillService";
constexpr uint32_t kDefaultConns = 4;
constexpr uint32_t kDefaultDepth = 32;
constexpr double kDefaultDupRatio = 0.1;

int RunSeckill(int argc, const char* const* argv) {
  SeckillBenchOptions options;
  LoadOptions& load = options.load;
  // By default the sale is contended and has retries in flight, the case the checks are for.
  load.conns = kDefaultConns;
  load.depth = kDefaultDepth;
  options.dup_ratio = kDefaultDupRatio;
  FlagParser flags(std::string{kProgram});
  AddWindowFlags(flags, &load, &options.channel, "seckill-server", "purchases");
  flags.AddInteger<int64_t>("--stock", "S", &options.stock, 1, 1'000'000'000,
                            "units on sale (required)");
  flags.AddInteger<uint32_t>("--buyers", "N", &options.buyers, 1, 50'000'000,
                             "distinct buyers, one purchase each (required)");
  flags.AddDouble("--dup-ratio", "R", &options.dup_ratio, 0, 1,
                  "fraction of buyers sending a second purchase: alternately the same request "
                  "id again and a new one (default 0.1)");
  flags.AddDouble("--duration-limit", "SECONDS", &options.duration_limit_s, 0.001, 86'400,
                  "no purchase starts after this (default 60)");
  flags.AddDouble("--settle-timeout", "SECONDS", &options.settle_timeout_s, 0, 86'400,
                  "how long to wait for the orders after the burst (default 60)");
  flags.AddInteger<uint32_t>("--pay-timeout-s", "SECONDS", &options.pay_timeout_s, 1, 100'000'000,
                             "the activity's pay timeout (default 86400)");
  flags.AddInteger<int64_t>("--sku", "ID", &options.sku_id, 1, std::numeric_limits<int64_t>::max(),
                            "the activity's sku id (default 1)");
  flags.AddString("--accepted-out", "FILE", &options.accepted_out,
                  "write every ACCEPTED request as an 'activity_id request_id user_id' line");
  SeckillDatabaseOptions& db = options.database;
  flags.AddString("--verify-db", "sqlite|mariadb", &db.kind,
                  "after the checks through the provider, read its database directly (with "
                  "--db-path, or --db-host/--db-port/--db-user/--db-password/--db-name)");
  flags.AddString("--db-path", "FILE", &db.sqlite_path, "the embedded backend's SQLite file");
  flags.AddString("--db-host", "HOST", &db.host, "MariaDB host (default 127.0.0.1)");
  flags.AddInteger<uint16_t>("--db-port", "PORT", &db.port, 1, 65535,
                             "MariaDB port (default 3306)");
  flags.AddString("--db-user", "USER", &db.user, "MariaDB user (default root)");
  flags.AddString("--db-password", "PASSWORD", &db.password, "MariaDB password (default empty)");
  flags.AddString("--db-name", "NAME", &db.database, "MariaDB database (default ferry_seckill)");
  AddUserTokenKeyFlag(flags, "each buyer", &options.user_token_key_id, &options.user_token_secret);
  AddOperatorKeyFlag(flags, "CreateActivity, Preheat and Reconcile", &options.operator_key_id,
                     &options.operator_secret);
  SeckillPaymentOptions& pay = options.payments;
  flags.AddString("--pay-at", "HOST:PORT", &pay.paysim_target,
                  "after the checks, buyers pay --pay-ratio of the orders at this simulated "
                  "payment channel (paysim-server), which must turn them PAID");
  flags.AddDouble("--pay-ratio", "R", &pay.pay_ratio, 0, 1,
                  "fraction of the orders paid with --pay-at (default 0.1)");
  flags.AddString("--pay-channel", "NAME", &pay.channel,
                  "the provider's name of that channel (payments.channels; default sim)");
  flags.AddString("--merchant", "ID", &pay.merchant_id,
                  "the provider's merchant id at the channel (default seckill)");
  AddKeyFlag(flags, "--paysim-operator-key",
             "with --pay-at: also replay one notification and send one with a wrong amount "
             "(paysim's operator methods, signed with the auth key ID whose secret is in "
             "SECRET_FILE); both must change nothing",
             &pay.operator_key_id, &pay.operator_secret);
  flags.AddSwitch("--await-closes", &pay.await_closes,
                  "with --pay-at: wait out the pay timeout, then check that every order not paid "
                  "was closed and its unit went back to the stock");
  flags.AddCheck([&options](std::string* error) {
    const SeckillDatabaseOptions& d = options.database;
    if (!d.kind.empty() && d.kind != "sqlite" && d.kind != "mariadb") {
      *error = "--verify-db: expected sqlite or mariadb, got '" + d.kind + "'";
      return false;
    }
    if (d.kind == "sqlite" && d.sqlite_path.empty()) {
      *error = "--verify-db sqlite: --db-path is required";
      return false;
    }
    return true;
  });
  flags.AddCheck([&options](std::string* error) {
    if (options.stock == 0 || options.buyers == 0) {
      *error = options.stock == 0 ? "--stock: required" : "--buyers: required";
      return false;
    }
    return true;
  });
  if (auto exit_code = flags.ParseOrExit(argc, argv)) return *exit_code;
  return RunSeckillBench(options, std::cout, std::cerr);
}

}  // namespace

int RunSeckillBench(const SeckillBenchOptions& options, std::ostream& out, std::ostream& err,
                    SeckillBenchOutcome* outcome) {
  std::vector<std::shared_ptr<Channel>> channels;
  if (Status opened = OpenChannels(options.channel, kSeckillService, options.load, &channels);
      !opened.ok()) {
    err << kProgram << ": " << opened << "\n";
    return 1;
  }
  out << kProgram << ": " << DescribeWindow(options.load, options.channel)
      << " stock=" << options.stock << " buyers=" << options.buyers
      << " dup-ratio=" << options.dup_ratio << " duration-limit=" << options.duration_limit_s
      << "s " << DescribeChannels(options.channel, kSeckillService) << std::endl;
  if (!options.accepted_out.empty() && !std::ofstream(options.accepted_out, std::ios::trunc)) {
    err << kProgram << ": --accepted-out: cannot open " << options.accepted_out << " for writing\n";
    return 1;
  }
  std::shared_ptr<Channel> operator_channel;
  if (Status opened =
          OpenOperatorChannel(options.channel, kSeckillService, options.load,
                              options.operator_key_id, options.operator_secret, &operator_channel);
      !opened.ok()) {
    err << kProgram << ": " << opened << "\n";
    return 1;
  }
  Sale sale(options, std::move(channels), std::move(operator_channel), out, err);
  if (Status opened = sale.Open(); !opened.ok()) {
    err << kProgram << ": cannot set up the sale: " << opened << "\n";
    return 1;
  }
  sale.Burst();
  sale.Settle();
  SeckillBenchOutcome local;
  SeckillBenchOutcome* o = outcome ? outcome : &local;
  return sale.Check(o) ? 0 : 1;
}

const Command kSeckillCommand = {
    .name = "seckill",
    .summary = "one flash sale on ferry.seckill.SeckillService, then checks the orders",
    .run = RunSeckill,
};

}  // namespace ferry::bench
