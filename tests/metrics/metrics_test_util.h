#pragma once

#include <functional>
#include <string_view>
#include <vector>

#include "ferry/framework/metrics/snapshot.h"

namespace ferry::metrics {

// The family called `name` in a Collect() result; fails the test and returns nullptr if absent.
const FamilySnapshot* FindFamily(const std::vector<FamilySnapshot>& families,
                                 std::string_view name);

// Runs `body` on `threads` threads that start together (so that they overlap as much as the
// machine allows) and returns once all have finished.
void RunConcurrently(int threads, const std::function<void()>& body);

// The value of the only series of family `name`; fails the test and returns NaN if absent.
double OnlyValue(const std::vector<FamilySnapshot>& families, std::string_view name);

}  // namespace ferry::metrics
