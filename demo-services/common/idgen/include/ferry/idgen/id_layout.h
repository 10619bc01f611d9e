#pragma once

#include <cstdint>
#include <optional>

namespace ferry::idgen {

// The bit layout of an id, most significant first:
//
//   | 0 (sign) | 41 bits: ms since the epoch | 10 bits: worker id | 12 bits: sequence |
//
// Time leads so that ids sort by issue time across workers (good for B-tree inserts and for
// "newest orders first"); the sign bit stays 0 so ids fit a signed BIGINT, a Java long and a
// JSON number without surprises. 41 bits of ms last 69.7 years from the epoch.
inline constexpr int kSequenceBits = 12;
inline constexpr int kWorkerIdBits = 10;
inline constexpr int kTimestampBits = 41;
inline constexpr int kWorkerIdShift = kSequenceBits;
inline constexpr int kTimestampShift = kSequenceBits + kWorkerIdBits;

inline constexpr uint32_t kMaxSequence = (1u << kSequenceBits) - 1;  // 4095 ids per ms and worker
inline constexpr uint32_t kMaxWorkerId = (1u << kWorkerIdBits) - 1;  // 1024 workers: 0..1023
inline constexpr int64_t kMaxTimestamp = (int64_t{1} << kTimestampBits) - 1;

// 2026-01-01T00:00:00Z in Unix ms. A recent epoch leaves most of the 41 bits for the future
// (until 2095). Every generator of one id space must use the same epoch, forever: changing it
// can repeat ids that were already issued.
inline constexpr int64_t kDefaultEpochMs = 1767225600000;

// An id taken apart, for tests, logs and debugging ("which worker issued this order, when?").
struct DecodedId {
  int64_t timestamp_ms = 0;  // since the epoch, as stored in the id
  int64_t unix_ms = 0;       // timestamp_ms + epoch: wall-clock time of issue
  uint32_t worker_id = 0;
  uint32_t sequence = 0;

  friend bool operator==(const DecodedId&, const DecodedId&) = default;
};

// Packs the fields; each must be in range (timestamp_ms 0..kMaxTimestamp, worker_id
// 0..kMaxWorkerId, sequence 0..kMaxSequence). The result is always >= 0.
constexpr int64_t ComposeId(int64_t timestamp_ms, uint32_t worker_id, uint32_t sequence) {
  return (timestamp_ms << kTimestampShift) | (int64_t{worker_id} << kWorkerIdShift) |
         int64_t{sequence};
}

// The inverse of ComposeId. nullopt for a negative number, which no generator issues (useful
// when the id comes from outside, e.g. a short link or an order number typed in).
constexpr std::optional<DecodedId> DecodeId(int64_t id, int64_t epoch_ms = kDefaultEpochMs) {
  if (id < 0) return std::nullopt;
  DecodedId decoded;
  decoded.timestamp_ms = id >> kTimestampShift;
  decoded.unix_ms = decoded.timestamp_ms + epoch_ms;
  decoded.worker_id = static_cast<uint32_t>((id >> kWorkerIdShift) & kMaxWorkerId);
  decoded.sequence = static_cast<uint32_t>(id & kMaxSequence);
  return decoded;
}

}  // namespace ferry::idgen
