#include "ferry/framework/secret_file.h"

#include <fstream>
#include <sstream>

namespace ferry::config {

bool ReadSecretFile(const std::string& path, std::string* secret) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream text;
  text << in.rdbuf();
  if (!in.good() && !in.eof()) return false;
  *secret = text.str();
  if (secret->ends_with('\n')) secret->pop_back();
  if (secret->ends_with('\r')) secret->pop_back();
  return true;
}

void ReadSecret(ConfigReader& section, std::string_view key, std::string_view file_key,
                std::string* out) {
  std::string path;
  section.String(key, out);
  section.String(file_key, &path);
  if (path.empty()) return;
  if (!out->empty()) {
    section.Invalid(
        file_key, "set either " + std::string(key) + " or " + std::string(file_key) + ", not both");
    return;
  }
  if (!ReadSecretFile(path, out)) section.Invalid(file_key, "cannot read '" + path + "'");
}

}  // namespace ferry::config
