#pragma once

#include <bit>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>

#include "ferry/bench/single_writer_counter.h"

namespace ferry::bench {

// Log-linear latency histogram in the manner of HdrHistogram: every power-of-two range of
// nanoseconds is split into 128 equal buckets, so a reported value is within 0.4% of a recorded
// one from 1 ns up to kMaxTrackable (longer values count as kMaxTrackable). Memory (30 KiB) is
// fixed at construction; Record never allocates.
//
// One thread records; any thread may read or merge from it meanwhile (each load thread owns a
// histogram and a reporter merges them every second), seeing a slightly stale snapshot.
class LatencyHistogram {
 public:
  static constexpr std::chrono::nanoseconds kMaxTrackable{(int64_t{1} << 36) - 1};  // ~68.7 s

  LatencyHistogram();

  void Record(std::chrono::nanoseconds latency) {
    const uint64_t ns = latency.count() < 0 ? 0 : static_cast<uint64_t>(latency.count());
    const uint64_t clamped = ns < kMaxNanos ? ns : kMaxNanos;
    Counts& c = *counts_;
    c.buckets[BucketIndex(clamped)].Add(1);
    c.count.Add(1);
    c.sum.Add(clamped);
    if (clamped < c.min.Load()) c.min.Set(clamped);
    if (clamped > c.max.Load()) c.max.Set(clamped);
  }

  // Adds every value recorded in `other`. Only this histogram's writer may call it.
  void Merge(const LatencyHistogram& other);
  void Reset();

  uint64_t count() const { return counts_->count.Load(); }
  // The latency at or below which `percentile` % (0-100] of the values fall, to bucket
  // precision and never outside [min, max]; zero when empty.
  std::chrono::nanoseconds ValueAtPercentile(double percentile) const;
  std::chrono::nanoseconds min() const;
  std::chrono::nanoseconds max() const;
  std::chrono::nanoseconds mean() const;

 private:
  static constexpr int kSubBucketBits = 7;
  static constexpr uint64_t kSubBuckets = uint64_t{1} << kSubBucketBits;
  static constexpr uint64_t kMaxNanos = static_cast<uint64_t>(kMaxTrackable.count());
  static constexpr size_t kBucketCount = (36 - kSubBucketBits + 1) * kSubBuckets;

  struct Counts {
    SingleWriterCounter buckets[kBucketCount];
    SingleWriterCounter count;
    SingleWriterCounter sum;
    SingleWriterCounter min;
    SingleWriterCounter max;
  };

  // Values below 128 ns get a bucket each. Above, a value with its highest bit at 7 + shift
  // lands in bucket (shift + 1) * 128 + (its next 7 bits), a bucket 2^shift ns wide.
  static size_t BucketIndex(uint64_t ns) {
    if (ns < kSubBuckets) return static_cast<size_t>(ns);
    const int shift = std::bit_width(ns) - 1 - kSubBucketBits;
    return static_cast<size_t>((shift + 1) * kSubBuckets + ((ns >> shift) - kSubBuckets));
  }
  static uint64_t BucketMidpoint(size_t index);

  // Behind a pointer so that histograms can be moved despite their atomics.
  std::unique_ptr<Counts> counts_;
};

}  // namespace ferry::bench
