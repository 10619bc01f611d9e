#include "fast_random.h"

#include <random>

namespace ferry::loadbalance {

FastRandom& FastRandom::ForThisThread() {
  thread_local FastRandom random([] {
    std::random_device device;
    return (static_cast<uint64_t>(device()) << 32) | device();
  }());
  return random;
}

}  // namespace ferry::loadbalance
