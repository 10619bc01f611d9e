#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

namespace ferry::fuzz {

// Reads a fuzzer's input front to back; past its end, bytes read as 0 and strings as empty, so
// that every input means something.
class RequestReader {
 public:
  RequestReader(const uint8_t* data, size_t size) : data_(data), left_(size) {}

  bool empty() const { return left_ == 0; }
  uint8_t Byte() {
    if (left_ == 0) return 0;
    --left_;
    return *data_++;
  }
  // A 2-byte big-endian length.
  size_t Length() {
    const size_t high = Byte();
    return (high << 8) | Byte();
  }
  std::string Bytes(size_t n) {
    n = std::min(n, left_);
    std::string bytes(reinterpret_cast<const char*>(data_), n);
    data_ += n;
    left_ -= n;
    return bytes;
  }
  std::string Rest() { return Bytes(left_); }

 private:
  const uint8_t* data_;
  size_t left_;
};

}  // namespace ferry::fuzz
