#include "server/in_flight_calls.h"

#include <algorithm>
#include <random>

namespace ferry::server {
namespace {

constexpr size_t kFirstBuckets = 8;

// splitmix64's finalizer: every bit of the result depends on every bit of the input.
uint64_t Mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t RandomKey() {
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) ^ device();
}

}  // namespace

InFlightCalls::InFlightCalls() : key_(RandomKey()) {}

size_t InFlightCalls::BucketOf(uint64_t request_id) const {
  return Mix(request_id ^ key_) & (buckets_.size() - 1);
}

void InFlightCalls::Insert(InFlightEntry* call, uint64_t request_id) {
  if (size_ >= buckets_.size()) Grow();
  call->in_flight_id = request_id;
  InFlightEntry*& head = buckets_[BucketOf(request_id)];
  call->prev_in_flight = nullptr;
  call->next_in_flight = head;
  if (head != nullptr) head->prev_in_flight = call;
  head = call;
  ++size_;
}

void InFlightCalls::Erase(InFlightEntry* call) {
  if (call->prev_in_flight != nullptr) {
    call->prev_in_flight->next_in_flight = call->next_in_flight;
  } else {
    buckets_[BucketOf(call->in_flight_id)] = call->next_in_flight;
  }
  if (call->next_in_flight != nullptr) call->next_in_flight->prev_in_flight = call->prev_in_flight;
  call->prev_in_flight = call->next_in_flight = nullptr;
  --size_;
}

InFlightEntry* InFlightCalls::Find(uint64_t request_id) const {
  if (buckets_.empty()) return nullptr;
  for (InFlightEntry* call = buckets_[BucketOf(request_id)]; call != nullptr;
       call = call->next_in_flight) {
    if (call->in_flight_id == request_id) return call;
  }
  return nullptr;
}

size_t InFlightCalls::LongestChain() const {
  size_t longest = 0;
  for (InFlightEntry* head : buckets_) {
    size_t length = 0;
    for (InFlightEntry* call = head; call != nullptr; call = call->next_in_flight) ++length;
    longest = std::max(longest, length);
  }
  return longest;
}

void InFlightCalls::Grow() {
  std::vector<InFlightEntry*> old = std::move(buckets_);
  buckets_.assign(old.empty() ? kFirstBuckets : old.size() * 2, nullptr);
  size_ = 0;
  // Oldest last in each old chain, so that calls sharing an id keep their order.
  for (InFlightEntry* head : old) {
    InFlightEntry* last = head;
    while (last != nullptr && last->next_in_flight != nullptr) last = last->next_in_flight;
    for (InFlightEntry* call = last; call != nullptr;) {
      InFlightEntry* newer = call->prev_in_flight;
      Insert(call, call->in_flight_id);
      call = newer;
    }
  }
}

}  // namespace ferry::server
