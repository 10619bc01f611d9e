#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "storage/bloom_positions.h"
#include "storage/link_cache.h"

namespace ferry::shortlink {

// The embedded backend's filter: in this process (the only writer of its database), loaded
// before the provider serves, sized from the number of links, and built again larger by
// Maintain once it holds more codes than its shape keeps under `false_positive_rate`.
class LocalCodeFilter final : public CodeFilter {
 public:
  LocalCodeFilter(const BloomHasher* hasher, double false_positive_rate)
      : hasher_(hasher), false_positive_rate_(false_positive_rate) {}
  Status Check(const std::string& code, FilterAnswer* answer) override;
  Status Add(const std::string& code) override;
  Status Maintain(const CodeSource& codes) override;

  BloomShape shape() const;

 private:
  struct Bits {
    BloomShape shape;
    std::vector<uint64_t> words;
    uint64_t codes = 0;
    void Add(const std::vector<uint64_t>& positions);
  };

  const BloomHasher* const hasher_;
  const double false_positive_rate_;
  mutable std::mutex mu_;
  std::unique_ptr<Bits> current_;   // null until loaded; guarded by mu_
  std::unique_ptr<Bits> building_;  // while a larger one is filled, adds go to both
};

}  // namespace ferry::shortlink
