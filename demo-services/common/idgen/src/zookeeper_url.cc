#include "zookeeper_url.h"

#include <algorithm>
#include <vector>

#include "ferry/registry/registry_url.h"

namespace ferry::idgen {

Status ParseZooKeeperUrl(std::string_view url, std::string* hosts) {
  std::vector<std::string> addresses;
  if (Status s = registry::ParseRegistryUrl(url, "zookeeper", /*allow_empty=*/false, &addresses);
      !s.ok()) {
    return s;
  }
  hosts->clear();
  for (const std::string& address : addresses) {
    if (!hosts->empty()) hosts->push_back(',');
    hosts->append(address);
  }
  return Status::Ok();
}

Status CheckNamespace(std::string_view name) {
  const auto bad = [&](std::string_view why) {
    return Status(StatusCode::INVALID_ARGUMENT,
                  "idgen namespace '" + std::string(name) + "' " + std::string(why));
  };
  if (name.empty()) return bad("is empty");
  if (name == "." || name == "..") return bad("is not a usable znode name");
  const bool bad_char = std::any_of(name.begin(), name.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return c == '/' || u <= 0x20 || u == 0x7f;
  });
  if (bad_char) return bad("contains '/', whitespace or a control character");
  return Status::Ok();
}

}  // namespace ferry::idgen
