#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace ferry::shortlink::testing {

// Headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe: the
// browser reads NUL-terminated JSON commands on fd 3 and answers on fd 4), one page of its own.
// A profile in `dir`, nothing beyond loopback; killed with its process group on destruction.
class ChromiumPage {
 public:
  ~ChromiumPage();
  // `extra_args`: more command-line switches (e.g. --host-resolver-rules=...).
  bool Start(const std::string& chromium, const std::filesystem::path& dir,
             const std::vector<std::string>& extra_args, std::string* error);
  bool Navigate(const std::string& url, std::string* error);
  // The expression's value as JSON text (strings quoted), awaiting a promise; empty on an
  // exception or when the page is between documents.
  std::string Evaluate(const std::string& expression);
  // Evaluates until the value is a non-empty string or `timeout` passes; the string (unquoted).
  std::string WaitForString(const std::string& expression, std::chrono::milliseconds timeout);

 private:
  bool Send(const std::string& method, const std::string& params_json, bool in_session,
            std::string* result_json, std::string* error);

  pid_t pid_ = -1;
  int to_browser_ = -1;
  int from_browser_ = -1;
  int next_id_ = 1;
  std::string session_;
  std::string pending_;  // bytes read past the last message
};

}  // namespace ferry::shortlink::testing
