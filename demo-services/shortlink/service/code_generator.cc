#include "service/code_generator.h"

#include <openssl/rand.h>

#include "service/code_rules.h"

namespace ferry::shortlink {

SegmentIdAllocator::SegmentIdAllocator(LinkStore* store, std::string sequence, int64_t step)
    : store_(store), sequence_(std::move(sequence)), step_(step), fetch_error_(Status::Ok()) {
  fetcher_ = std::thread([this] { Fetch(); });
}

SegmentIdAllocator::~SegmentIdAllocator() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  changed_.notify_all();
  fetcher_.join();
}

void SegmentIdAllocator::Fetch() {
  std::unique_lock lock(mu_);
  while (true) {
    changed_.wait(lock, [this] { return stopping_ || (fetching_ && !spare_); });
    if (stopping_) return;
    lock.unlock();
    int64_t first = 0;
    Status s = store_->LeaseIds(sequence_, step_, &first);
    lock.lock();
    if (s.ok()) {
      spare_ = Range{first, first + step_};
      ++leases_;
    }
    fetch_error_ = s;
    fetching_ = false;
    changed_.notify_all();
  }
}

Status SegmentIdAllocator::Next(int64_t* id) {
  std::unique_lock lock(mu_);
  while (current_.next >= current_.end) {
    if (spare_) {
      current_ = *spare_;
      spare_.reset();
      break;
    }
    if (!fetching_) {
      fetching_ = true;
      changed_.notify_all();
    }
    changed_.wait(lock, [this] { return !fetching_; });
    if (!spare_ && !fetch_error_.ok()) return fetch_error_;
  }
  *id = current_.next++;
  if (!spare_ && !fetching_ && current_.end - current_.next <= step_ / 5) {
    fetching_ = true;
    changed_.notify_all();
  }
  return Status::Ok();
}

Status SegmentCodeGenerator::Next(std::string* code) {
  while (true) {
    int64_t id = 0;
    if (Status s = ids_.Next(&id); !s.ok()) return s;
    *code = Base62(id);
    if (!IsReservedCode(*code)) return Status::Ok();
  }
}

Status RandomCodeGenerator::Next(std::string* code) {
  code->clear();
  unsigned char bytes[64];
  while (static_cast<int>(code->size()) < length_) {
    if (RAND_bytes(bytes, sizeof(bytes)) != 1) {
      return Status(StatusCode::INTERNAL, "RAND_bytes failed");
    }
    for (unsigned char b : bytes) {
      if (b >= 248 || static_cast<int>(code->size()) == length_) continue;
      code->push_back(kBase62Alphabet[b % 62]);
    }
  }
  if (IsReservedCode(*code)) return Next(code);
  return Status::Ok();
}

}  // namespace ferry::shortlink
