#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "ferry/codec/status.h"
#include "storage/link_store.h"

namespace ferry::shortlink {

// Where generated codes come from (service.codes.generator).
class CodeGenerator {
 public:
  virtual ~CodeGenerator() = default;
  virtual Status Next(std::string* code) = 0;
};

// Leaf-style segments: ids are leased from the database `step` at a time (LinkStore::LeaseIds,
// one atomic UPDATE), so providers never overlap and a restart never goes back; a provider
// that dies loses only the rest of its range. Two buffers: when a fifth of the current range
// is left, a background thread leases the next one, so Next() seldom waits for the database.
class SegmentIdAllocator {
 public:
  SegmentIdAllocator(LinkStore* store, std::string sequence, int64_t step);
  ~SegmentIdAllocator();
  Status Next(int64_t* id);
  int64_t leases() const { return leases_; }

 private:
  struct Range {
    int64_t next = 0;
    int64_t end = 0;
  };
  void Fetch();

  LinkStore* const store_;
  const std::string sequence_;
  const int64_t step_;
  std::mutex mu_;
  std::condition_variable changed_;
  Range current_;               // guarded by mu_
  std::optional<Range> spare_;  // guarded by mu_
  bool fetching_ = false;       // guarded by mu_
  bool stopping_ = false;       // guarded by mu_
  Status fetch_error_;          // guarded by mu_
  int64_t leases_ = 0;          // guarded by mu_
  std::thread fetcher_;
};

// Base62 of the next segment id; sequential, so codes can be enumerated.
class SegmentCodeGenerator final : public CodeGenerator {
 public:
  SegmentCodeGenerator(LinkStore* store, int64_t step) : ids_(store, "link_codes", step) {}
  Status Next(std::string* code) override;
  SegmentIdAllocator& ids() { return ids_; }

 private:
  SegmentIdAllocator ids_;
};

// `length` Base62 characters from OpenSSL's CSPRNG (unbiased: bytes >= 248 are drawn again);
// collisions are caught by the UNIQUE code and retried by the caller.
class RandomCodeGenerator final : public CodeGenerator {
 public:
  explicit RandomCodeGenerator(int length) : length_(length) {}
  Status Next(std::string* code) override;

 private:
  const int length_;
};

}  // namespace ferry::shortlink
