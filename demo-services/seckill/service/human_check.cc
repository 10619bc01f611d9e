#include "service/human_check.h"

#include <map>
#include <mutex>

namespace ferry::seckill {
namespace {

std::mutex& KindsMutex() {
  static std::mutex mu;
  return mu;
}

std::map<std::string, HumanCheckKind>& Kinds() {
  static std::map<std::string, HumanCheckKind> kinds;
  return kinds;
}

}  // namespace

void RegisterHumanCheck(const std::string& kind, HumanCheckKind make) {
  std::lock_guard lock(KindsMutex());
  Kinds()[kind] = std::move(make);
}

std::shared_ptr<HumanCheck> ReadHumanCheck(config::ConfigReader& admission) {
  if (!admission.Has("human_check")) return nullptr;
  config::ConfigReader section = admission.Section("human_check");
  std::string kind;
  section.String("kind", &kind);
  HumanCheckKind make;
  std::string known;
  {
    std::lock_guard lock(KindsMutex());
    if (const auto it = Kinds().find(kind); it != Kinds().end()) make = it->second;
    for (const auto& [name, ignored] : Kinds()) known += (known.empty() ? "" : ", ") + name;
  }
  if (!make) {
    section.Invalid("kind", "no human check of kind '" + kind + "' in this process (known: " +
                                (known.empty() ? "none" : known) + ")");
    return nullptr;
  }
  std::shared_ptr<HumanCheck> check = make(section);
  section.RejectUnknownKeys();
  return check;
}

}  // namespace ferry::seckill
