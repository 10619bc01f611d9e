#pragma once

#include <filesystem>
#include <string>

namespace ferry::testsupport {

// A new directory `<temp>/<prefix>XXXXXX` (mode 0700), removed with everything in it on
// destruction. A gtest failure, and an empty path(), when it cannot be made.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "ferry-test-");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace ferry::testsupport
