#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ferry::bench {

// What ferry-bench like knows about every (content, user) it wrote: the state of the last
// acknowledged SetLike, or uncertain when a call failed in a way that may have applied it (a
// timeout after which every retry of the same request failed too). Each pair belongs to one
// slot of the load, which has at most one call out, so a slot's table has one writer at a time
// and the calls of a pair cannot race each other on the provider.
class LikeTruth {
 public:
  enum class State : uint8_t { kUnliked, kLiked, kUncertain };

  struct Tally {
    int64_t liked = 0;      // pairs whose last acknowledged state is liked
    int64_t uncertain = 0;  // pairs that may or may not be liked
    bool touched = false;   // some SetLike named the content
  };

  LikeTruth(uint32_t slots, uint32_t contents);

  // The state `user` now has on `content`, as `slot` learnt it.
  void Record(uint32_t slot, uint32_t content, uint32_t user, State state);
  // The state recorded so far (kUnliked for a pair never written).
  State Get(uint32_t slot, uint32_t content, uint32_t user) const;

  // One per content index; after the load (no Record running).
  std::vector<Tally> TallyByContent() const;

 private:
  static uint64_t Key(uint32_t content, uint32_t user) { return (uint64_t{content} << 32) | user; }

  const uint32_t contents_;
  std::vector<std::unordered_map<uint64_t, State>> by_slot_;
};

}  // namespace ferry::bench
