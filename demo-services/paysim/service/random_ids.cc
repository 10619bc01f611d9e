#include "service/random_ids.h"

#include <openssl/rand.h>

#include <random>
#include <vector>

namespace ferry::paysim {

std::string RandomId(std::string_view prefix, int bytes) {
  std::vector<unsigned char> raw(static_cast<size_t>(bytes));
  if (RAND_bytes(raw.data(), bytes) != 1) {
    // OpenSSL without entropy: the kernel's generator still is one.
    std::random_device device;
    for (unsigned char& b : raw) b = static_cast<unsigned char>(device());
  }
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string id(prefix);
  for (unsigned char b : raw) {
    id.push_back(kDigits[b >> 4]);
    id.push_back(kDigits[b & 0xf]);
  }
  return id;
}

}  // namespace ferry::paysim
