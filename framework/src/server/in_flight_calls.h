#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ferry::server {

// What a call is to InFlightCalls, as a base of ServerCall.
struct InFlightEntry {
  uint64_t in_flight_id = 0;  // the request id it was inserted with
  InFlightEntry* prev_in_flight = nullptr;
  InFlightEntry* next_in_flight = nullptr;
};

// A connection's calls in flight, found by request id in constant expected time whatever ids
// the peer picks: a cancel frame, which anyone may send for any id, costs a lookup, not a scan
// of every call. Intrusive (each call is an InFlightEntry), so a call costs no allocation; the
// bucket array grows with the most calls ever in flight. Buckets are chosen by a keyed mix of
// the id, its key random per table, so that a peer cannot aim its ids at one bucket. Not
// thread-safe: the connection guards it.
class InFlightCalls {
 public:
  InFlightCalls();

  // A second call with the same id is found first until it leaves.
  void Insert(InFlightEntry* call, uint64_t request_id);
  void Erase(InFlightEntry* call);
  // The latest call inserted with `request_id`; null when none is in flight.
  InFlightEntry* Find(uint64_t request_id) const;
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }

  template <class Visit>
  void ForEach(Visit visit) const {
    for (InFlightEntry* head : buckets_) {
      for (InFlightEntry* call = head; call != nullptr; call = call->next_in_flight) visit(call);
    }
  }

  // The most calls one bucket holds: how far a lookup may have to walk.
  size_t LongestChain() const;

 private:
  size_t BucketOf(uint64_t request_id) const;
  void Grow();

  std::vector<InFlightEntry*> buckets_;  // empty until the first call; a power of two after
  size_t size_ = 0;
  uint64_t key_;
};

}  // namespace ferry::server
