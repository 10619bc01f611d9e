#include "shortlink_command.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "ferry/bench/flag_parser.h"
#include "ferry/bench/latency_histogram.h"
#include "ferry/bench/result_line.h"
#include "http_client.h"

namespace ferry::bench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::string_view kProgram = "ferry-bench shortlink";
constexpr std::string_view kGateway = "/ferry.shortlink.ShortLinkService/";
// A browser's agent: the service counts command-line clients as bots.
constexpr std::string_view kAgent = "User-Agent: Mozilla/5.0 (X11; Linux x86_64) ferry-bench/1";

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }
uint64_t Micros(std::chrono::nanoseconds d) { return static_cast<uint64_t>(d.count() / 1000); }

// The string value of `"name":"..."` in a flat JSON object; empty when absent.
std::string JsonString(const std::string& body, std::string_view name) {
  const std::string key = "\"" + std::string(name) + "\":\"";
  const size_t at = body.find(key);
  if (at == std::string::npos) return "";
  const size_t start = at + key.size();
  return body.substr(start, body.find('"', start) - start);
}

// The integer `"name":N` or `"name":"N"` (proto3 JSON writes int64 as a string); 0 when absent
// (proto3 JSON leaves zeros out).
int64_t JsonInt(const std::string& body, std::string_view name) {
  const std::string key = "\"" + std::string(name) + "\":";
  const size_t at = body.find(key);
  if (at == std::string::npos) return 0;
  size_t i = at + key.size();
  if (i < body.size() && body[i] == '"') ++i;
  return std::strtoll(body.c_str() + i, nullptr, 10);
}

// Ranks 0..n-1 with P(k) ~ 1/(k+1)^s: rank 0 is the hottest link.
class Zipf {
 public:
  Zipf(uint32_t n, double s) : cdf_(n) {
    double sum = 0;
    for (uint32_t k = 0; k < n; ++k) cdf_[k] = sum += 1.0 / std::pow(k + 1.0, s);
    for (double& c : cdf_) c /= sum;
  }
  uint32_t Next(std::mt19937_64& rng) const {
    const double u = std::uniform_real_distribution<double>(0, 1)(rng);
    return static_cast<uint32_t>(std::lower_bound(cdf_.begin(), cdf_.end(), u) - cdf_.begin());
  }

 private:
  std::vector<double> cdf_;
};

// A code the service cannot have: 10 characters, longer than its random (8) and segment codes.
std::string UnknownCode(std::mt19937_64& rng) {
  static constexpr char kBase62[] =
      "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  std::string code = "Q";
  for (int i = 0; i < 9; ++i) code += kBase62[rng() % 62];
  return code;
}

// shortlink_db_queries_total from /metrics; -1 when unreadable.
double DbQueries(HttpConnection& http) {
  const HttpResult r = http.Call("GET", "/metrics");
  const std::string name = "\nshortlink_db_queries_total";
  const size_t at = r.body.find(name);
  if (r.status != 200 || at == std::string::npos) return -1;
  const size_t value = r.body.find(' ', at + 1);
  return value == std::string::npos ? -1 : std::strtod(r.body.c_str() + value + 1, nullptr);
}

struct Tally {
  std::atomic<uint64_t> found{0}, not_found{0}, errors{0};
};

// Runs `total` requests over `conns` threads, each picking its path with `pick`.
void Drive(const ShortLinkBenchOptions& o, uint64_t total,
           const std::function<std::string(std::mt19937_64&, int*)>& pick,
           std::vector<std::atomic<uint64_t>>* hits, Tally* tally,
           std::vector<std::unique_ptr<LatencyHistogram>>* histograms, std::ostream* progress) {
  std::atomic<uint64_t> next{0};
  std::atomic<bool> done{false};
  std::vector<std::thread> threads;
  histograms->clear();
  for (uint32_t t = 0; t < o.conns; ++t) {
    histograms->push_back(std::make_unique<LatencyHistogram>());
  }
  for (uint32_t t = 0; t < o.conns; ++t) {
    threads.emplace_back([&, t] {
      HttpConnection http(o.host, o.port);
      std::mt19937_64 rng(0x5eed + t);
      LatencyHistogram& latency = *(*histograms)[t];
      while (next.fetch_add(1) < total) {
        int link = -1;
        const std::string path = pick(rng, &link);
        const auto start = Clock::now();
        const HttpResult r = http.Call("GET", path, {std::string(kAgent)});
        latency.Record(Clock::now() - start);
        if (r.status == 302) {
          tally->found.fetch_add(1, std::memory_order_relaxed);
          if (link >= 0) (*hits)[static_cast<size_t>(link)].fetch_add(1);
        } else if (r.status == 404) {
          tally->not_found.fetch_add(1, std::memory_order_relaxed);
        } else {
          tally->errors.fetch_add(1, std::memory_order_relaxed);
        }
      }
    });
  }
  std::thread reporter([&] {
    if (progress == nullptr) return;
    const auto start = Clock::now();
    uint64_t last = 0;
    while (!done.load()) {
      for (int i = 0; i < 10 && !done.load(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      LatencyHistogram merged;
      for (auto& h : *histograms) merged.Merge(*h);
      const uint64_t now = merged.count();
      *progress << "  [" << static_cast<int>(Seconds(Clock::now() - start)) << "s] " << now << "/"
                << total << " requests, " << (now - last) << "/s, p99 "
                << Micros(merged.ValueAtPercentile(99)) << " us\n"
                << std::flush;
      last = now;
    }
  });
  for (auto& t : threads) t.join();
  done = true;
  reporter.join();
}

}  // namespace

int RunShortLinkBench(const ShortLinkBenchOptions& o, std::ostream& out, std::ostream& err,
                      ShortLinkBenchOutcome* outcome) {
  ShortLinkBenchOutcome local;
  ShortLinkBenchOutcome& r = outcome ? *outcome : local;
  const std::string auth = "Authorization: Bearer " + o.api_key;
  const std::string run_id =
      std::to_string(std::chrono::system_clock::now().time_since_epoch().count());

  // 1. Links.
  out << "creating " << o.links << " links on " << o.host << ":" << o.port << "\n" << std::flush;
  std::vector<std::string> codes(o.links);
  std::atomic<uint32_t> next_link{0};
  std::atomic<bool> create_failed{false};
  std::vector<std::thread> creators;
  for (uint32_t t = 0; t < std::min<uint32_t>(o.conns, o.links); ++t) {
    creators.emplace_back([&] {
      HttpConnection http(o.host, o.port);
      for (uint32_t i; (i = next_link.fetch_add(1)) < o.links && !create_failed;) {
        const std::string body = "{\"requestId\":\"bench-" + run_id + "-" + std::to_string(i) +
                                 "\",\"longUrl\":\"https://example.com/item/" + std::to_string(i) +
                                 "\"}";
        const HttpResult c = http.Call("POST", std::string(kGateway) + "CreateLink",
                                       {auth, "Content-Type: application/json"}, body);
        codes[i] = JsonString(c.body, "code");
        if (c.status != 200 || codes[i].empty()) {
          if (!create_failed.exchange(true)) {
            err << kProgram << ": CreateLink answered " << c.status << ": " << c.body << "\n";
          }
        }
      }
    });
  }
  for (auto& t : creators) t.join();
  if (create_failed) return 1;

  // 2. The mix: Zipf over the links, a share of unknown codes.
  const Zipf zipf(o.links, o.zipf_s);
  std::vector<std::atomic<uint64_t>> hits(o.links);
  Tally mix;
  std::vector<std::unique_ptr<LatencyHistogram>> histograms;
  out << "redirects: " << o.requests << " over " << o.conns << " connections, zipf s=" << o.zipf_s
      << ", unknown " << o.unknown_ratio * 100 << "%\n"
      << std::flush;
  const auto mix_start = Clock::now();
  Drive(
      o, o.requests,
      [&](std::mt19937_64& rng, int* link) {
        if (std::uniform_real_distribution<double>(0, 1)(rng) < o.unknown_ratio) {
          return "/" + UnknownCode(rng);
        }
        *link = static_cast<int>(zipf.Next(rng));
        return "/" + codes[static_cast<size_t>(*link)];
      },
      &hits, &mix, &histograms, &out);
  const double mix_seconds = Seconds(Clock::now() - mix_start);
  LatencyHistogram latency;
  for (auto& h : histograms) latency.Merge(*h);
  r.found = mix.found;
  r.not_found = mix.not_found;
  r.errors = mix.errors;
  r.rps = static_cast<uint64_t>(static_cast<double>(mix.found + mix.not_found) / mix_seconds);
  r.p50_us = Micros(latency.ValueAtPercentile(50));
  r.p90_us = Micros(latency.ValueAtPercentile(90));
  r.p99_us = Micros(latency.ValueAtPercentile(99));
  r.p999_us = Micros(latency.ValueAtPercentile(99.9));

  // 3. Unknown codes only: what they cost the database.
  HttpConnection admin(o.host, o.port);
  const double queries_before = DbQueries(admin);
  Tally flood;
  Drive(
      o, o.unknown_probe, [](std::mt19937_64& rng, int*) { return "/" + UnknownCode(rng); }, &hits,
      &flood, &histograms, nullptr);
  const double queries_after = DbQueries(admin);
  if (queries_before >= 0 && queries_after >= 0 && o.unknown_probe > 0) {
    r.db_queries_per_1k_unknown =
        (queries_after - queries_before) * 1000.0 / static_cast<double>(o.unknown_probe);
  }

  // 4. Every link's PV (+ bot visits) equals its 302s once the statistics settled.
  const auto settle_start = Clock::now();
  std::vector<size_t> pending;
  for (size_t i = 0; i < codes.size(); ++i) {
    if (hits[i] > 0) pending.push_back(i);
  }
  int64_t counted = 0;
  int64_t over = 0;
  while (!pending.empty() && Seconds(Clock::now() - settle_start) < o.settle_timeout_s) {
    std::vector<size_t> still;
    for (size_t i : pending) {
      const HttpResult s =
          admin.Call("POST", std::string(kGateway) + "Stats",
                     {auth, "Content-Type: application/json"}, "{\"code\":\"" + codes[i] + "\"}");
      const int64_t pv = JsonInt(s.body, "pv") + JsonInt(s.body, "botVisits");
      if (s.status == 200 && pv == static_cast<int64_t>(hits[i].load())) {
        counted += pv;
      } else {
        if (s.status == 200 && pv > static_cast<int64_t>(hits[i].load())) ++over;
        still.push_back(i);
      }
    }
    pending = std::move(still);
    if (!pending.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  r.pv = counted;
  if (pending.empty()) {
    r.settle_ms = static_cast<int64_t>(Seconds(Clock::now() - settle_start) * 1000);
  }
  r.passed =
      pending.empty() && r.errors == 0 && flood.errors == 0 && flood.not_found == o.unknown_probe;

  out << "redirects: " << r.found << " x 302, " << r.not_found << " x 404, " << r.errors
      << " errors in " << mix_seconds << " s: " << r.rps << " req/s\n"
      << "latency us: p50=" << r.p50_us << " p90=" << r.p90_us << " p99=" << r.p99_us
      << " p999=" << r.p999_us << "\n"
      << "unknown flood: " << o.unknown_probe << " requests, " << flood.not_found << " x 404, "
      << r.db_queries_per_1k_unknown << " database queries per 1000\n"
      << "statistics: PV + bots " << (pending.empty() ? "==" : "!=") << " 302s on "
      << (pending.empty() ? "every link" : std::to_string(pending.size()) + " links") << " ("
      << counted << " counted" << (over > 0 ? ", some links over" : "") << "), settled in "
      << r.settle_ms << " ms\n";
  out << ResultLine("RESULT")
             .Add("rps", r.rps)
             .Add("p50_us", r.p50_us)
             .Add("p99_us", r.p99_us)
             .Add("redirects", r.found)
             .Add("not_found", r.not_found)
             .Add("errors", r.errors)
             .Add("pv", r.pv)
             .Add("pv_matches", pending.empty() ? 1 : 0)
             .Add("db_queries_per_1k_unknown", r.db_queries_per_1k_unknown)
             .Add("settle_ms", r.settle_ms)
             .Add("passed", r.passed ? 1 : 0)
      << "\n";
  return r.passed ? 0 : 1;
}

namespace {

int RunShortLinkCommand(int argc, const char* const* argv) {
  ShortLinkBenchOptions options;
  std::string target = "127.0.0.1:7201";
  FlagParser flags(std::string{kProgram});
  flags.AddString("--target", "HOST:PORT", &target,
                  "the service's port (IPv4), default 127.0.0.1:7201");
  flags.AddString("--api-key", "KEY", &options.api_key, "a tenant's API key (required)");
  flags.AddInteger("--links", "N", &options.links, 1u, 1'000'000u, "links to create (1000)");
  flags.AddInteger("--requests", "N", &options.requests, uint64_t{1}, uint64_t{1'000'000'000},
                   "redirects of the mixed phase (100000)");
  flags.AddInteger("--conns", "N", &options.conns, 1u, 1024u, "keep-alive connections (8)");
  flags.AddDouble("--zipf", "S", &options.zipf_s, 0, 5, "Zipf exponent of the link mix (1.1)");
  flags.AddDouble("--unknown-ratio", "R", &options.unknown_ratio, 0, 1,
                  "share of unknown codes in the mix (0.05)");
  flags.AddInteger("--unknown-probe", "N", &options.unknown_probe, uint64_t{0},
                   uint64_t{100'000'000},
                   "unknown-only requests measuring database queries (10000)");
  flags.AddDouble("--settle-timeout", "S", &options.settle_timeout_s, 0, 3600,
                  "seconds the statistics may take to settle (60)");
  flags.AddCheck([&](std::string* error) {
    const size_t colon = target.rfind(':');
    const int port = colon == std::string::npos ? 0 : std::atoi(target.c_str() + colon + 1);
    if (port <= 0 || port > 65535) {
      *error = "--target: expected HOST:PORT, got '" + target + "'";
      return false;
    }
    options.host = target.substr(0, colon);
    options.port = static_cast<uint16_t>(port);
    if (options.api_key.empty()) {
      *error = "--api-key: required (a tenant's key: IssueApiKey)";
      return false;
    }
    return true;
  });
  if (auto exit_code = flags.ParseOrExit(argc, argv)) return *exit_code;
  return RunShortLinkBench(options, std::cout, std::cerr);
}

}  // namespace

const Command kShortLinkCommand = {
    .name = "shortlink",
    .summary = "short-link redirects over HTTP: Zipf mix, unknown codes, PV == 302s",
    .run = RunShortLinkCommand,
};

}  // namespace ferry::bench
