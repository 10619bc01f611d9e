#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ferry::shortlink {

// The distinct visitors of one link on one day, as a database column can hold them: the 64-bit
// visitor hashes themselves while there are at most kExactLimit (the count is exact), then a
// HyperLogLog of 2^14 registers (standard error 0.81%, the figure the notes accept for UV) in
// a fixed 16 KiB whatever the traffic. Adding a visitor twice changes nothing, so a sketch
// merged from a redelivered event stays right even without the event-id check.
class VisitorSketch {
 public:
  static constexpr int kPrecision = 14;
  static constexpr size_t kRegisters = size_t{1} << kPrecision;
  static constexpr size_t kExactLimit = 1024;

  // An empty column (NULL or "") is an empty sketch; anything else not written by Serialize is
  // refused, with *error saying what is wrong.
  static bool Parse(std::string_view bytes, VisitorSketch* out, std::string* error);
  std::string Serialize() const;

  void Add(uint64_t visitor);
  int64_t Count() const;
  bool exact() const { return registers_.empty(); }

 private:
  void ToRegisters();
  void AddToRegisters(uint64_t visitor);

  std::vector<uint64_t> exact_;     // sorted, distinct; used while registers_ is empty
  std::vector<uint8_t> registers_;  // kRegisters entries once past kExactLimit
};

// A visit event's visitor field (16 hex digits) as the sketch's 64-bit hash.
bool ParseVisitor(std::string_view hex, uint64_t* visitor);

}  // namespace ferry::shortlink
