#pragma once

#include <ostream>
#include <sstream>
#include <string>
#include <string_view>

namespace ferry::bench {

// A line of `key=value` fields after a tag ("RESULT qps=... p99_us=..."): what the scripts parse
// from a bench client's output, so every client writes them alike. Values are written as an
// ostream writes them.
class ResultLine {
 public:
  explicit ResultLine(std::string_view tag) { text_ << tag; }

  template <class T>
  ResultLine& Add(std::string_view key, const T& value) {
    text_ << ' ' << key << '=' << value;
    return *this;
  }

  std::string str() const { return text_.str(); }

 private:
  std::ostringstream text_;
};

inline std::ostream& operator<<(std::ostream& out, const ResultLine& line) {
  return out << line.str();
}

}  // namespace ferry::bench
