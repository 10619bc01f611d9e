#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "ferry/storage/redis_connection_pool.h"
#include "ferry/storage/redis_script_set.h"
#include "storage/bloom_positions.h"
#include "storage/link_cache.h"

namespace ferry::shortlink {

// A Bloom filter over a Redis bitmap shared by every provider. Everything it is stored under
// names the Redis generation (a restart, a restore from an older copy or a failover starts
// with no filter) and the filter's shape (`shortlink:bloom:g<gen>:b24k7`, with `:count`):
// a provider only ever reads a bitmap with the parameters it was filled with. Which shape is
// in use is `shortlink:bloom:g<gen>:current`; none (a fresh or flushed Redis, the bitmap
// evicted) means kUnknown, so the database answers.
//
// Maintain keeps it: when there is no filter, or the current one holds more codes than its
// shape keeps under the false-positive rate, one provider takes the lease, names the shape it
// builds `pending` (sized from the number of links, with room to grow), fills a bitmap from the
// database in memory and ORs it into Redis; creates meanwhile add their codes to the pending
// filter too. Then `current` is switched to it in one script, and the old one expires. The
// other providers go on with the current filter, or answer kUnknown when there is none.
//
// Check and Add run scripts that first compare the provider's view of `current` and `pending`
// with Redis's, so a provider that has not seen a switch yet never reads or writes the wrong
// bitmap: it reloads its view and asks again.
class RedisCodeFilter final : public CodeFilter {
 public:
  // `generation`: the Redis generation the keys are named by (0: not known yet, answers
  // kUnknown).
  RedisCodeFilter(storage::RedisConnectionPool* pool, const BloomHasher* hasher,
                  double false_positive_rate, std::function<int64_t()> generation);
  Status Check(const std::string& code, FilterAnswer* answer) override;
  Status Add(const std::string& code) override;
  Status Maintain(const CodeSource& codes) override;

  // The shape in use as this provider last saw it (empty: none).
  std::optional<BloomShape> current() const;

 private:
  struct View {
    int64_t generation = 0;
    std::optional<BloomShape> current;
    std::optional<BloomShape> pending;
    std::chrono::steady_clock::time_point read_at;
  };
  std::string Key(int64_t generation, std::string_view what) const;
  std::string BitmapKey(int64_t generation, const std::optional<BloomShape>& shape) const;
  View SeenView() const;
  Status ReadView(View* view);
  Status Build(const View& view, const CodeSource& codes);

  storage::RedisConnectionPool* const pool_;
  storage::RedisScriptSet scripts_;
  const BloomHasher* const hasher_;
  const double false_positive_rate_;
  const std::function<int64_t()> generation_;
  mutable std::mutex mu_;
  View view_;  // guarded by mu_
};

}  // namespace ferry::shortlink
