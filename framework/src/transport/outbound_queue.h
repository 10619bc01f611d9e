#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "thread_annotations.h"

namespace ferry::transport {

// Bytes waiting to be written to one socket. Any thread appends; the socket's IO thread takes
// everything appended so far in one swap, so frames from many callers leave in one write().
//
// Protocol: Append() returns true when no flush is running, and the caller must then schedule
// one on the IO thread. The flush loops TakeAll() + async_write until TakeAll() returns false,
// which also marks the queue idle again.
class OutboundQueue {
 public:
  // Returns true if the caller must start a flush.
  bool Append(std::string_view bytes) {
    MutexLock lock(mu_);
    pending_.append(bytes);
    if (flushing_) return false;
    flushing_ = true;
    return true;
  }

  enum class Appended { kQueued, kStaleLink, kFull, kClosed };
  // For a client whose socket is replaced over time: Append() for bytes that belong to link
  // `link`. kStaleLink, queueing nothing, once the queue has moved on to a later link
  // (ClearForLink), so a request admitted to a connection that has ended can never leave on the
  // next one, where its caller has already been told it failed. kFull, queueing nothing, when
  // the bytes would take the queue past `max_pending` (a peer that stopped reading). kClosed,
  // queueing nothing, once the link was closed to requests (CloseToRequests).
  Appended AppendToLink(std::string_view bytes, uint64_t link, size_t max_pending,
                        bool* must_flush) {
    return AppendToLinkWith(bytes.size(), link, max_pending, must_flush,
                            [bytes](std::string& pending) { pending.append(bytes); });
  }
  // The same for bytes that `write(pending)` appends, at most `max_size` of them, under the
  // queue's lock: for bytes that depend on what was queued before them, in queue order.
  template <class Write>
  Appended AppendToLinkWith(size_t max_size, uint64_t link, size_t max_pending, bool* must_flush,
                            Write&& write) {
    MutexLock lock(mu_);
    *must_flush = false;
    if (link < link_) return Appended::kStaleLink;
    if (closed_to_requests_) return Appended::kClosed;
    if (pending_.size() + max_size > max_pending) return Appended::kFull;
    write(pending_);
    if (!flushing_) *must_flush = flushing_ = true;
    return Appended::kQueued;
  }

  // Swaps the pending bytes into `*out` (whose old contents are discarded; its capacity is
  // reused next time). Returns false, and ends the flush, when nothing is pending.
  bool TakeAll(std::string* out) {
    out->clear();
    MutexLock lock(mu_);
    if (pending_.empty()) {
      flushing_ = false;
      return false;
    }
    pending_.swap(*out);
    return true;
  }

  // Drops everything pending (the socket is gone) and ends any flush.
  void Clear() {
    MutexLock lock(mu_);
    pending_.clear();
    flushing_ = false;
  }

  // Clear(), and from now on refuse AppendToLink() for links before `next_link`.
  void ClearForLink(uint64_t next_link) {
    MutexLock lock(mu_);
    pending_.clear();
    flushing_ = false;
    link_ = next_link;
    closed_to_requests_ = false;
  }

  // Appends `last`, the current link's last bytes, and refuses AppendToLink() until the next
  // link: every request is then either before `last` or certainly not sent. Returns true if the
  // caller must start a flush.
  bool CloseToRequests(std::string_view last) {
    MutexLock lock(mu_);
    closed_to_requests_ = true;
    pending_.append(last);
    if (flushing_) return false;
    flushing_ = true;
    return true;
  }

  size_t pending_bytes() const {
    MutexLock lock(mu_);
    return pending_.size();
  }

 private:
  mutable Mutex mu_;
  std::string pending_ FERRY_GUARDED_BY(mu_);
  bool flushing_ FERRY_GUARDED_BY(mu_) = false;
  uint64_t link_ FERRY_GUARDED_BY(mu_) = 0;  // the oldest link AppendToLink still accepts
  bool closed_to_requests_ FERRY_GUARDED_BY(mu_) = false;
};

}  // namespace ferry::transport
