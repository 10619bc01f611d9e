#pragma once

#include <fstream>
#include <iterator>
#include <string>

namespace ferry::plugins::tools {

// A key's secret as the tools take it: a file's content, one trailing newline ignored (so that
// `echo secret > file` works). Empty string and *error set when it cannot be read or is empty.
inline std::string ReadSecretFile(const std::string& path, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = "--secret-file: cannot open '" + path + "'";
    return "";
  }
  std::string secret((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (secret.ends_with('\n')) secret.pop_back();
  if (secret.ends_with('\r')) secret.pop_back();
  if (secret.empty()) *error = "--secret-file: '" + path + "' is empty";
  return secret;
}

}  // namespace ferry::plugins::tools
