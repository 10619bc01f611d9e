#pragma once

#include <cstdio>
#include <cstdlib>

// A property every input must keep. A failure aborts, which libFuzzer reports as a crash and
// saves the input as the reproducer.
#define FERRY_FUZZ_CHECK(condition, ...)                                                      \
  do {                                                                                        \
    if (!(condition)) {                                                                       \
      std::fprintf(stderr, "%s:%d: fuzz check failed: %s\n", __FILE__, __LINE__, #condition); \
      std::fprintf(stderr, __VA_ARGS__);                                                      \
      std::fputc('\n', stderr);                                                               \
      std::abort();                                                                           \
    }                                                                                         \
  } while (false)
