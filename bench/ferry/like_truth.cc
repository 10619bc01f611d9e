#include "like_truth.h"

namespace ferry::bench {

LikeTruth::LikeTruth(uint32_t slots, uint32_t contents) : contents_(contents), by_slot_(slots) {}

void LikeTruth::Record(uint32_t slot, uint32_t content, uint32_t user, State state) {
  by_slot_[slot][Key(content, user)] = state;
}

LikeTruth::State LikeTruth::Get(uint32_t slot, uint32_t content, uint32_t user) const {
  const auto& table = by_slot_[slot];
  const auto it = table.find(Key(content, user));
  return it == table.end() ? State::kUnliked : it->second;
}

std::vector<LikeTruth::Tally> LikeTruth::TallyByContent() const {
  std::vector<Tally> tallies(contents_);
  for (const auto& table : by_slot_) {
    for (const auto& [key, state] : table) {
      Tally& tally = tallies[key >> 32];
      tally.touched = true;
      if (state == State::kLiked) ++tally.liked;
      if (state == State::kUncertain) ++tally.uncertain;
    }
  }
  return tallies;
}

}  // namespace ferry::bench
