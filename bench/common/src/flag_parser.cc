#include "ferry/bench/flag_parser.h"

#include <charconv>
#include <cmath>
#include <iostream>
#include <sstream>
#include <utility>

namespace ferry::bench {
namespace {

// "0.01" rather than std::to_string's "0.010000".
std::string FormatNumber(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

}  // namespace

FlagParser::FlagParser(std::string program) : program_(std::move(program)) {}

void FlagParser::AddString(std::string name, std::string value_name, std::string* out,
                           std::string help) {
  flags_.push_back({std::move(name), std::move(value_name), std::move(help),
                    [out](std::string_view text, std::string*) {
                      out->assign(text);
                      return true;
                    }});
}

void FlagParser::AddSwitch(std::string name, bool* out, std::string help) {
  flags_.push_back({std::move(name), "", std::move(help), [out](std::string_view, std::string*) {
                      *out = true;
                      return true;
                    }});
}

void FlagParser::AddDouble(std::string name, std::string value_name, double* out, double min,
                           double max, std::string help) {
  flags_.push_back({std::move(name), std::move(value_name), std::move(help),
                    [out, min, max](std::string_view text, std::string* error) {
                      double v = 0;
                      const auto [end, ec] =
                          std::from_chars(text.data(), text.data() + text.size(), v);
                      if (ec != std::errc() || end != text.data() + text.size() ||
                          !std::isfinite(v) || v < min || v > max) {
                        *error = "expected a number from " + FormatNumber(min) + " to " +
                                 FormatNumber(max) + ", got '" + std::string(text) + "'";
                        return false;
                      }
                      *out = v;
                      return true;
                    }});
}

void FlagParser::AddIntegerErased(std::string name, std::string value_name, int64_t min,
                                  int64_t max, std::string help,
                                  std::function<void(int64_t)> store) {
  flags_.push_back(
      {std::move(name), std::move(value_name), std::move(help),
       [min, max, store = std::move(store)](std::string_view text, std::string* error) {
         int64_t v = 0;
         const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
         if (ec != std::errc() || end != text.data() + text.size() || v < min || v > max) {
           *error = "expected an integer from " + std::to_string(min) + " to " +
                    std::to_string(max) + ", got '" + std::string(text) + "'";
           return false;
         }
         store(v);
         return true;
       }});
}

void FlagParser::AddCheck(std::function<bool(std::string* error)> check) {
  checks_.push_back(std::move(check));
}

const FlagParser::Flag* FlagParser::Find(std::string_view name) const {
  for (const Flag& flag : flags_) {
    if (flag.name == name) return &flag;
  }
  return nullptr;
}

FlagParser::Outcome FlagParser::Parse(std::span<const char* const> args, std::string* error) const {
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view arg = args[i];
    if (arg == "--help" || arg == "-h") return Outcome::kHelp;
    if (!arg.starts_with("--")) {
      *error = "unexpected argument '" + std::string(arg) + "'";
      return Outcome::kError;
    }
    std::string_view name = arg;
    std::optional<std::string_view> value;
    if (const size_t eq = arg.find('='); eq != std::string_view::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    }
    const Flag* flag = Find(name);
    if (flag == nullptr) {
      *error = "unknown flag '" + std::string(name) + "'";
      return Outcome::kError;
    }
    if (flag->value_name.empty()) {
      if (value) {
        *error = flag->name + ": takes no value";
        return Outcome::kError;
      }
      value = "";
    } else if (!value) {
      if (i + 1 == args.size()) {
        *error = flag->name + ": missing value " + flag->value_name;
        return Outcome::kError;
      }
      value = args[++i];
    }
    std::string why;
    if (!flag->set(*value, &why)) {
      *error = flag->name + ": " + why;
      return Outcome::kError;
    }
  }
  for (const auto& check : checks_) {
    if (!check(error)) return Outcome::kError;
  }
  return Outcome::kOk;
}

std::string FlagParser::Usage() const {
  std::string usage = "usage: " + program_ + " [flags]\n";
  for (const Flag& flag : flags_) {
    std::string left = "  " + flag.name + (flag.value_name.empty() ? "" : " " + flag.value_name);
    left.resize(std::max<size_t>(left.size() + 2, 26), ' ');
    usage += left + flag.help + "\n";
  }
  return usage;
}

std::optional<int> FlagParser::ParseOrExit(int argc, const char* const* argv) const {
  std::string error;
  switch (Parse(std::span(argv + 1, static_cast<size_t>(argc > 0 ? argc - 1 : 0)), &error)) {
    case Outcome::kOk:
      return std::nullopt;
    case Outcome::kHelp:
      std::cout << Usage();
      return 0;
    case Outcome::kError:
      break;
  }
  std::cerr << program_ << ": " << error << "\n" << Usage();
  return 2;
}

}  // namespace ferry::bench
