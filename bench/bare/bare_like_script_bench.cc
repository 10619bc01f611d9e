// The like service's SetLike script called straight on Redis, with the workload `ferry-bench
// like` sends through Ferry: contents picked by Zipf, random users, each user in one of the
// content's buckets, so Redis holds as many keys and streams as in the Ferry run. The peer
// that SetLike through Ferry is measured against (redis-benchmark can only vary each argument
// independently, so it cannot name a user and that user's bucket in one call).
//
// One thread, --clients connections, one call in flight on each (like redis-benchmark -c).
#include <hiredis.h>
#include <poll.h>

#include <chrono>
#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "ferry/bench/flag_parser.h"
#include "ferry/bench/latency_histogram.h"
#include "ferry/bench/result_line.h"
#include "ferry/bench/zipf_picker.h"

namespace ferry::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string host = "127.0.0.1";
  int port = 6379;
  std::string sha;
  uint32_t clients = 128;
  uint64_t calls = 100000;
  uint32_t contents = 1000;
  int64_t content_base = 0;
  double zipf = 0.99;
  uint32_t users = 1000000;
  uint32_t buckets = 4;
  uint32_t partitions = 64;
  int64_t request_ttl_ms = 120000;
  uint64_t seed = 16;
};

// Any hash spreads users evenly; this is the service's (FNV-1a), so the spread is the same.
uint32_t BucketOf(const std::string& user, uint32_t buckets) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : user) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return static_cast<uint32_t>(h % buckets);
}

// The service's partition of a bucket (splitmix64's finalizer, twice), so that the keys and
// the streams spread over the same hash slots.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

uint32_t PartitionOf(int64_t content, uint32_t bucket, uint32_t partitions) {
  return static_cast<uint32_t>(Mix(Mix(static_cast<uint64_t>(content)) ^ bucket) % partitions);
}

std::string Tag(uint32_t partition) { return "{lk:" + std::to_string(partition) + "}"; }

// The prefix of a bucket's keys.
std::string Prefix(int64_t content, uint32_t bucket, uint32_t partitions) {
  return Tag(PartitionOf(content, bucket, partitions)) + ":" + std::to_string(content) + ":" +
         std::to_string(bucket) + ":";
}

// The generation every partition's key holds here (the provider makes random ones).
constexpr char kGeneration[] = "1";
// The provider's default event_writer.max_backlog: the script checks the stream's length too.
constexpr int64_t kBacklogLimit = 200000;

redisContext* Connect(const Options& o) {
  redisContext* c = redisConnect(o.host.c_str(), o.port);
  if (c == nullptr || c->err != 0) {
    std::cerr << "bare-like-script-bench: cannot connect to " << o.host << ":" << o.port << ": "
              << (c != nullptr ? c->errstr : "out of memory") << "\n";
    if (c != nullptr) redisFree(c);
    return nullptr;
  }
  return c;
}

// Every partition's generation key, and every bucket's ready marker holding the layout in that
// generation, as after the provider loaded it.
bool MarkReady(redisContext* c, const Options& o) {
  for (uint32_t p = 0; p < o.partitions; ++p) {
    const std::string key = Tag(p) + ":g";
    const char* argv[] = {"HSET", key.c_str(), "gen", kGeneration, "id", "bare"};
    redisAppendCommandArgv(c, 6, argv, nullptr);
  }
  for (uint32_t i = 0; i < o.contents; ++i) {
    for (uint32_t b = 0; b < o.buckets; ++b) {
      const std::string key = Prefix(o.content_base + i + 1, b, o.partitions) + "r";
      const std::string value = std::to_string(o.buckets) + "@" + kGeneration;
      const char* argv[] = {"SET", key.c_str(), value.c_str()};
      redisAppendCommandArgv(c, 3, argv, nullptr);
    }
  }
  for (uint32_t n = 0; n < o.partitions + o.contents * o.buckets; ++n) {
    void* reply = nullptr;
    if (redisGetReply(c, &reply) != REDIS_OK) return false;
    freeReplyObject(reply);
  }
  return true;
}

class Client {
 public:
  Client(redisContext* context, const Options& options, const ZipfPicker& picker, uint64_t seed)
      : c_(context), o_(options), picker_(picker), random_(seed) {}
  ~Client() { redisFree(c_); }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  int fd() const { return c_->fd; }

  bool Send(uint64_t serial) {
    const int64_t content = o_.content_base + picker_.Pick(random_) + 1;
    const std::string user = "u" + std::to_string(random_() % o_.users);
    const uint32_t bucket = BucketOf(user, o_.buckets);
    const std::string prefix = Prefix(content, bucket, o_.partitions);
    const std::string tag = Tag(PartitionOf(content, bucket, o_.partitions));
    // Request ids in the current window's hash, looked up in the one before too.
    const int64_t window = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count() /
                           o_.request_ttl_ms;
    const std::vector<std::string> args = {
        "EVALSHA",
        o_.sha,
        "9",
        prefix + "m",
        prefix + "n",
        prefix + "v",
        prefix + "r",
        tag + ":g",
        tag + ":s",
        tag + ":t",
        prefix + "q" + std::to_string(window),
        prefix + "q" + std::to_string(window - 1),
        user,
        "1",
        std::to_string(content),
        std::to_string(bucket),
        std::to_string(o_.buckets),
        std::to_string(user.size()) + ":" + user + ":bare-" + std::to_string(serial),
        std::to_string(2 * o_.request_ttl_ms + 10000),
        std::to_string(kBacklogLimit),
        std::to_string(content) + ":" + std::to_string(bucket) + ":" + user};
    std::vector<const char*> argv;
    std::vector<size_t> lens;
    for (const std::string& a : args) {
      argv.push_back(a.data());
      lens.push_back(a.size());
    }
    if (redisAppendCommandArgv(c_, static_cast<int>(argv.size()), argv.data(), lens.data()) !=
        REDIS_OK) {
      return false;
    }
    int done = 0;
    while (done == 0) {
      if (redisBufferWrite(c_, &done) != REDIS_OK) return false;
    }
    sent_ = Clock::now();
    return true;
  }

  // After poll saw the socket readable: false on a broken connection; *replied once the reply
  // is complete, with *liked when the call added its user.
  bool Receive(bool* replied, bool* liked, bool* error, LatencyHistogram* latencies) {
    *replied = false;
    if (redisBufferRead(c_) != REDIS_OK) return false;
    void* raw = nullptr;
    if (redisGetReplyFromReader(c_, &raw) != REDIS_OK) return false;
    if (raw == nullptr) return true;
    latencies->Record(Clock::now() - sent_);
    auto* r = static_cast<redisReply*>(raw);
    *replied = true;
    *error = r->type != REDIS_REPLY_ARRAY || r->elements != 3 ||
             r->element[0]->type != REDIS_REPLY_INTEGER || r->element[0]->integer < 0;
    *liked = !*error && r->element[0]->integer == 1;
    freeReplyObject(r);
    return true;
  }

 private:
  redisContext* const c_;
  const Options& o_;
  const ZipfPicker& picker_;
  std::mt19937_64 random_;
  Clock::time_point sent_;
};

int Run(const Options& o) {
  redisContext* setup = Connect(o);
  if (setup == nullptr) return 1;
  const bool ready = MarkReady(setup, o);
  redisFree(setup);
  if (!ready) {
    std::cerr << "bare-like-script-bench: cannot set the ready markers\n";
    return 1;
  }
  const ZipfPicker picker(o.contents, o.zipf, 0);
  std::vector<std::unique_ptr<Client>> clients;
  std::vector<pollfd> fds;
  for (uint32_t i = 0; i < o.clients; ++i) {
    redisContext* c = Connect(o);
    if (c == nullptr) return 1;
    clients.push_back(std::make_unique<Client>(c, o, picker, o.seed * 1000003 + i));
    fds.push_back({.fd = clients.back()->fd(), .events = POLLIN, .revents = 0});
  }
  LatencyHistogram latencies;
  uint64_t sent = 0;
  uint64_t done = 0;
  uint64_t likes = 0;
  uint64_t errors = 0;
  const auto start = Clock::now();
  for (auto& client : clients) {
    if (sent < o.calls && !client->Send(sent++)) return 1;
  }
  while (done < sent) {
    if (poll(fds.data(), fds.size(), 10000) <= 0) {
      std::cerr << "bare-like-script-bench: no reply within 10 s\n";
      return 1;
    }
    for (size_t i = 0; i < fds.size(); ++i) {
      if ((fds[i].revents & (POLLIN | POLLERR | POLLHUP)) == 0) continue;
      bool replied = false;
      bool liked = false;
      bool error = false;
      if (!clients[i]->Receive(&replied, &liked, &error, &latencies)) {
        std::cerr << "bare-like-script-bench: connection " << i << " broke\n";
        return 1;
      }
      if (!replied) continue;
      ++done;
      likes += liked ? 1 : 0;
      errors += error ? 1 : 0;
      if (sent < o.calls && !clients[i]->Send(sent++)) return 1;
    }
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  auto us = [&](double p) {
    return std::chrono::duration_cast<std::chrono::microseconds>(latencies.ValueAtPercentile(p))
        .count();
  };
  std::cout << "bare-like-script-bench: " << done << " calls over " << o.contents << " contents x "
            << o.buckets << " buckets in " << seconds << " s, " << likes << " likes, " << errors
            << " errors\n";
  std::cout << ResultLine("RESULT")
                   .Add("qps", static_cast<int64_t>(static_cast<double>(done) / seconds))
                   .Add("p50_us", us(50))
                   .Add("p99_us", us(99))
                   .Add("likes", likes)
                   .Add("errors", errors)
            << "\n";
  return errors == 0 ? 0 : 1;
}

}  // namespace
}  // namespace ferry::bench

int main(int argc, char** argv) {
  using ferry::bench::FlagParser;
  ferry::bench::Options o;
  FlagParser flags("bare-like-script-bench");
  flags.AddString("--host", "HOST", &o.host, "Redis host (loopback)");
  flags.AddInteger("--port", "PORT", &o.port, 1, 65535, "Redis port");
  flags.AddString("--sha", "SHA1", &o.sha, "the loaded SetLike script (SCRIPT LOAD's answer)");
  flags.AddInteger("--clients", "N", &o.clients, 1u, 4096u, "connections, one call in flight each");
  flags.AddInteger("--calls", "N", &o.calls, uint64_t{1}, uint64_t{100000000}, "calls in all");
  flags.AddInteger("--contents", "N", &o.contents, 1u, 1000000u, "contents, picked by Zipf");
  flags.AddInteger("--content-base", "ID", &o.content_base, int64_t{0}, int64_t{1} << 60,
                   "content ids are base + 1 .. base + contents, as ferry-bench like's");
  flags.AddDouble("--zipf", "S", &o.zipf, 0, 5, "Zipf exponent over the contents");
  flags.AddInteger("--users", "N", &o.users, 1u, 4000000000u, "users, picked uniformly");
  flags.AddInteger("--buckets", "N", &o.buckets, 1u, 1024u, "buckets of every content");
  flags.AddInteger("--partitions", "N", &o.partitions, 1u, 1024u,
                   "the provider's partitions (service.partitions, default 64)");
  flags.AddInteger("--request-ttl-ms", "MS", &o.request_ttl_ms, int64_t{1}, int64_t{86400000},
                   "how long each call's request id is remembered");
  flags.AddInteger("--seed", "N", &o.seed, uint64_t{0}, ~uint64_t{0}, "random seed");
  flags.AddCheck([&](std::string* error) {
    if (!o.sha.empty()) return true;
    *error = "--sha is required";
    return false;
  });
  if (auto exit_code = flags.ParseOrExit(argc, argv)) return *exit_code;
  return ferry::bench::Run(o);
}
