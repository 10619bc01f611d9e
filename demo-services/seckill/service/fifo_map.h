#pragma once

#include <cstddef>
#include <deque>
#include <string>
#include <unordered_map>

namespace ferry::seckill {

// A map of at most `capacity` entries that forgets the oldest inserted first, for the
// provider's bounded memories of answers (RequestAnswerCache, DecidedResults). Not
// thread-safe: each of their shards holds one under its lock.
template <class V>
class FifoMap {
 public:
  // Set once, before the first Insert (the maps live in arrays of shards).
  void set_capacity(size_t capacity) { capacity_ = capacity; }

  const V* Find(const std::string& key) const {
    auto it = entries_.find(key);
    return it == entries_.end() ? nullptr : &it->second;
  }

  // The first value inserted under a key stays; false when the key was there already.
  bool Insert(const std::string& key, const V& value) {
    if (!entries_.emplace(key, value).second) return false;
    order_.push_back(key);
    if (order_.size() > capacity_) {
      entries_.erase(order_.front());
      order_.pop_front();
    }
    return true;
  }

 private:
  size_t capacity_ = 1;
  std::unordered_map<std::string, V> entries_;
  std::deque<std::string> order_;  // insertion order, for eviction
};

}  // namespace ferry::seckill
