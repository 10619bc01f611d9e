#include "metrics_test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <latch>
#include <thread>

namespace ferry::metrics {

const FamilySnapshot* FindFamily(const std::vector<FamilySnapshot>& families,
                                 std::string_view name) {
  for (const FamilySnapshot& family : families) {
    if (family.name == name) return &family;
  }
  ADD_FAILURE() << "no family " << name;
  return nullptr;
}

void RunConcurrently(int threads, const std::function<void()>& body) {
  std::latch start(threads);
  std::vector<std::jthread> running;
  for (int t = 0; t < threads; ++t) {
    running.emplace_back([&] {
      start.arrive_and_wait();
      body();
    });
  }
}

double OnlyValue(const std::vector<FamilySnapshot>& families, std::string_view name) {
  const FamilySnapshot* family = FindFamily(families, name);
  if (family == nullptr) return NAN;
  EXPECT_EQ(family->series.size(), 1u) << name;
  return family->series.empty() ? NAN : family->series[0].value;
}

}  // namespace ferry::metrics
