#include "metrics/names.h"

#include <cstdint>
#include <set>
#include <string>

namespace ferry::metrics {
namespace {

bool IsLetterOrUnderscore(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool IsMetricName(std::string_view name) {
  if (name.empty() || IsDigit(name[0])) return false;
  for (char c : name) {
    if (!IsLetterOrUnderscore(c) && !IsDigit(c) && c != ':') return false;
  }
  return true;
}

bool IsLabelName(std::string_view name) {
  if (name.empty() || IsDigit(name[0])) return false;
  for (char c : name) {
    if (!IsLetterOrUnderscore(c) && !IsDigit(c)) return false;
  }
  return true;
}

Status Invalid(const FamilySnapshot& info, const std::string& problem) {
  return Status(StatusCode::INVALID_ARGUMENT, "metric \"" + info.name + "\": " + problem);
}

Status CheckLabelNames(const FamilySnapshot& info) {
  std::set<std::string_view> seen;
  for (const std::string& label : info.label_names) {
    if (!IsLabelName(label)) {
      return Invalid(info, "label name \"" + label + "\" must match [a-zA-Z_][a-zA-Z0-9_]*");
    }
    if (label.starts_with("__")) {
      return Invalid(info, "label name \"" + label + "\" starts with __, which Prometheus keeps");
    }
    if (info.type == MetricType::kHistogram && label == "le") {
      return Invalid(info, "a histogram cannot have a label \"le\": its buckets use it");
    }
    if (!seen.insert(label).second) return Invalid(info, "label \"" + label + "\" given twice");
  }
  return Status::Ok();
}

}  // namespace

bool IsValidUtf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    size_t extra;
    uint32_t code;
    if (lead < 0x80) {
      ++i;
      continue;
    } else if ((lead & 0xE0) == 0xC0) {
      extra = 1;
      code = lead & 0x1F;
    } else if ((lead & 0xF0) == 0xE0) {
      extra = 2;
      code = lead & 0x0F;
    } else if ((lead & 0xF8) == 0xF0) {
      extra = 3;
      code = lead & 0x07;
    } else {
      return false;
    }
    if (text.size() - i <= extra) return false;
    for (size_t k = 1; k <= extra; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0) != 0x80) return false;
      code = (code << 6) | (next & 0x3F);
    }
    // Overlong forms, surrogates and values past Unicode's end are not UTF-8.
    static constexpr uint32_t kSmallest[] = {0, 0x80, 0x800, 0x10000};
    if (code < kSmallest[extra] || (code >= 0xD800 && code <= 0xDFFF) || code > 0x10FFFF) {
      return false;
    }
    i += extra + 1;
  }
  return true;
}

Status CheckFamilyInfo(const FamilySnapshot& info) {
  if (!IsMetricName(info.name)) return Invalid(info, "name must match [a-zA-Z_:][a-zA-Z0-9_:]*");
  const bool total = info.name.ends_with("_total");
  if (info.type == MetricType::kCounter && !total) {
    return Invalid(info, "a counter's name ends in _total");
  }
  if (info.type != MetricType::kCounter && total) {
    return Invalid(info, "only a counter's name ends in _total");
  }
  if (info.help.empty()) return Invalid(info, "help is empty");
  if (!IsValidUtf8(info.help)) return Invalid(info, "help is not valid UTF-8");
  return CheckLabelNames(info);
}

}  // namespace ferry::metrics
