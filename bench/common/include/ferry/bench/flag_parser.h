#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ferry::bench {

// Command-line flags of the bench programs: `--name value` or `--name=value`, each bound to a
// variable that keeps its value when the flag is absent. Errors name the offending flag, so that
// a typo in a long benchmark script is found before the run rather than after.
class FlagParser {
 public:
  enum class Outcome { kOk, kHelp, kError };

  // `program` heads the usage text, e.g. "bare-echo-bench".
  explicit FlagParser(std::string program);

  void AddString(std::string name, std::string value_name, std::string* out, std::string help);
  void AddDouble(std::string name, std::string value_name, double* out, double min, double max,
                 std::string help);
  template <std::integral T>
  void AddInteger(std::string name, std::string value_name, T* out, T min, T max,
                  std::string help) {
    AddIntegerErased(std::move(name), std::move(value_name), static_cast<int64_t>(min),
                     static_cast<int64_t>(max), std::move(help),
                     [out](int64_t v) { *out = static_cast<T>(v); });
  }
  // A flag without a value: `--name` sets *out to true.
  void AddSwitch(std::string name, bool* out, std::string help);
  // Runs after every flag has been read, for rules that span flags. Returns false and sets
  // `*error` (naming the flags) when the combination is invalid.
  void AddCheck(std::function<bool(std::string* error)> check);

  // `args` excludes the program name. --help / -h yields kHelp.
  Outcome Parse(std::span<const char* const> args, std::string* error) const;
  std::string Usage() const;

  // For main(): parses argv[1..argc). Prints usage on --help (stdout) or the error and usage on
  // a bad command line (stderr) and returns the exit code to leave with; nullopt to go on.
  std::optional<int> ParseOrExit(int argc, const char* const* argv) const;

 private:
  struct Flag {
    std::string name;
    std::string value_name;  // empty: a switch, which takes no value
    std::string help;
    // Stores the value, or returns false with an error that does not yet name the flag.
    std::function<bool(std::string_view text, std::string* error)> set;
  };

  void AddIntegerErased(std::string name, std::string value_name, int64_t min, int64_t max,
                        std::string help, std::function<void(int64_t)> store);
  const Flag* Find(std::string_view name) const;

  std::string program_;
  std::vector<Flag> flags_;
  std::vector<std::function<bool(std::string*)>> checks_;
};

}  // namespace ferry::bench
