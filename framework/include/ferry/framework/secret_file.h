#pragma once

#include <string>
#include <string_view>

#include "ferry/framework/config_reader.h"

namespace ferry::config {

// A secret kept in a file, as configs and command-line tools take it: the file's bytes, one
// trailing newline (as editors and `echo` leave) not part of it. False when it cannot be read.
bool ReadSecretFile(const std::string& path, std::string* secret);

// A secret given either inline as `key` or in the file that `file_key` names, not both; a file
// that cannot be read is reported through `section`, naming the key and its line.
void ReadSecret(ConfigReader& section, std::string_view key, std::string_view file_key,
                std::string* out);

}  // namespace ferry::config
