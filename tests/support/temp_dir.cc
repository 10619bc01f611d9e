#include "temp_dir.h"

#include <gtest/gtest.h>

#include "process.h"

namespace ferry::testsupport {

TempDir::TempDir(const std::string& prefix) : path_(internal::MakeTempDir(prefix)) {
  EXPECT_FALSE(path_.empty()) << "cannot make a temporary directory " << prefix << "XXXXXX";
}

TempDir::~TempDir() {
  if (path_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace ferry::testsupport
