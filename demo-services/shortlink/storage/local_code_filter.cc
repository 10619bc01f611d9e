#include "storage/local_code_filter.h"

namespace ferry::shortlink {

void LocalCodeFilter::Bits::Add(const std::vector<uint64_t>& positions) {
  bool fresh = false;
  for (uint64_t p : positions) {
    uint64_t& word = words[p / 64];
    fresh |= (word & (1ull << (p % 64))) == 0;
    word |= 1ull << (p % 64);
  }
  if (fresh) ++codes;
}

BloomShape LocalCodeFilter::shape() const {
  std::lock_guard lock(mu_);
  return current_ ? current_->shape : BloomShape{};
}

Status LocalCodeFilter::Check(const std::string& code, FilterAnswer* answer) {
  std::lock_guard lock(mu_);
  if (!current_) {
    *answer = FilterAnswer::kUnknown;
    return Status::Ok();
  }
  for (uint64_t p : hasher_->Positions(code, current_->shape)) {
    if ((current_->words[p / 64] & (1ull << (p % 64))) == 0) {
      *answer = FilterAnswer::kNo;
      return Status::Ok();
    }
  }
  *answer = FilterAnswer::kMaybe;
  return Status::Ok();
}

Status LocalCodeFilter::Add(const std::string& code) {
  std::lock_guard lock(mu_);
  for (Bits* bits : {current_.get(), building_.get()}) {
    if (bits) bits->Add(hasher_->Positions(code, bits->shape));
  }
  return Status::Ok();
}

Status LocalCodeFilter::Maintain(const CodeSource& codes) {
  {
    std::lock_guard lock(mu_);
    if (current_ && current_->codes <= CapacityOf(current_->shape, false_positive_rate_)) {
      return Status::Ok();
    }
  }
  uint64_t count = 0;
  if (Status s = codes.count(&count); !s.ok()) return s;
  {
    std::lock_guard lock(mu_);
    auto bits = std::make_unique<Bits>();
    bits->shape = ShapeFor(std::max(count, current_ ? current_->codes : 0), false_positive_rate_);
    bits->words.assign(bits->shape.bits() / 64, 0);
    building_ = std::move(bits);
  }
  // Creates meanwhile Add() to the one being built too, so it is complete once this ends.
  Status s = codes.for_each([this](const std::string& code) {
    std::lock_guard lock(mu_);
    building_->Add(hasher_->Positions(code, building_->shape));
  });
  std::lock_guard lock(mu_);
  if (s.ok()) current_ = std::move(building_);
  building_.reset();
  return s;
}

}  // namespace ferry::shortlink
