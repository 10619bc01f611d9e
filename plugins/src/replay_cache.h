#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace ferry::plugins {

// The tokens a server accepted, each until its time leaves the allowed clock skew (after which
// it is refused as expired anyway), so that none is accepted twice. Holds at most `max_entries`
// and, rather than forget a token that could still be replayed, refuses to record more once
// full (kFull: the filter then fails the call closed).
//
// Entries are 64-bit fingerprints of the tokens' signatures, spread over up to 64 shards with a
// mutex each by their high bits. A shard files each entry under the time its token expires, in
// generations a quarter of the skew wide, and drops a whole generation at once when its last
// token has expired: no per-entry timers, no scans. Each generation is an open-addressing set
// of 8-byte slots kept at most half full: 16 to 32 bytes an entry.
class ReplayCache {
 public:
  ReplayCache(size_t max_entries, std::chrono::milliseconds max_skew);

  enum class Outcome { kFresh, kReplayed, kFull };

  // Records the token of `fingerprint`, issued at `token_unix_ms` and found within the skew of
  // the server's `now_unix_ms`: kFresh the first time, kReplayed after that.
  Outcome Record(uint64_t fingerprint, int64_t token_unix_ms, int64_t now_unix_ms);

  size_t max_entries() const { return max_entries_; }

 private:
  // More than the skew window spans (two skews: from a token just expiring to one just issued
  // by a client ahead by the whole skew) plus the generation being dropped.
  static constexpr size_t kGenerations = 16;

  struct Generation {
    int64_t index = -1;  // expiry time / width_ms_ of its entries; -1: none
    size_t count = 0;
    std::vector<uint64_t> slots;  // 0: empty; a size that is a power of two
  };
  struct alignas(64) Shard {
    std::mutex mu;
    size_t capacity = 0;
    size_t live = 0;  // entries over all generations
    std::array<Generation, kGenerations> generations;
  };

  void Drop(Shard& shard, Generation& generation) const;
  void DropExpired(Shard& shard, int64_t now_unix_ms) const;
  static bool Contains(const Generation& generation, uint64_t key);
  static void Insert(Generation& generation, uint64_t key);

  const size_t max_entries_;
  const int64_t skew_ms_;
  const int64_t width_ms_;
  std::unique_ptr<Shard[]> shards_;
  size_t shard_count_;
};

}  // namespace ferry::plugins
