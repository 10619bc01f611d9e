#include "chromium_pipe.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json/src.hpp>  // header-only: Debian ships no libboost_json for 1.81
#include <thread>

namespace ferry::shortlink::testing {

namespace json = boost::json;

ChromiumPage::~ChromiumPage() {
  if (pid_ > 0) {
    ::kill(-pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  if (to_browser_ >= 0) ::close(to_browser_);
  if (from_browser_ >= 0) ::close(from_browser_);
}

bool ChromiumPage::Start(const std::string& chromium, const std::filesystem::path& dir,
                         const std::vector<std::string>& extra_args, std::string* error) {
  int commands[2], answers[2];
  if (::pipe2(commands, O_CLOEXEC) != 0 || ::pipe2(answers, O_CLOEXEC) != 0) {
    *error = "pipe failed";
    return false;
  }
  std::vector<std::string> args = {chromium,
                                   "--headless",
                                   "--no-sandbox",
                                   "--disable-gpu",
                                   "--disable-quic",
                                   "--no-first-run",
                                   "--disable-background-networking",
                                   "--disable-component-update",
                                   "--disable-sync",
                                   "--remote-debugging-pipe",
                                   "--user-data-dir=" + (dir / "profile").string()};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  args.push_back("about:blank");
  const std::string home = "HOME=" + dir.string();
  const std::string config = "XDG_CONFIG_HOME=" + (dir / "config").string();
  const std::string cache = "XDG_CACHE_HOME=" + (dir / "cache").string();
  const std::string log = (dir / "chromium.log").string();
  pid_ = ::fork();
  if (pid_ < 0) {
    *error = "fork failed";
    return false;
  }
  if (pid_ == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    ::dup2(commands[0], 3);
    ::dup2(answers[1], 4);
    const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out >= 0) {
      ::dup2(out, 1);
      ::dup2(out, 2);
    }
    ::putenv(const_cast<char*>(home.c_str()));
    ::putenv(const_cast<char*>(config.c_str()));
    ::putenv(const_cast<char*>(cache.c_str()));
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(commands[0]);
  ::close(answers[1]);
  to_browser_ = commands[1];
  from_browser_ = answers[0];
  std::string result;
  if (!Send("Target.createTarget", R"({"url":"about:blank"})", false, &result, error)) {
    return false;
  }
  const std::string target = json::value_to<std::string>(json::parse(result).at("targetId"));
  if (!Send("Target.attachToTarget", R"({"targetId":")" + target + R"(","flatten":true})", false,
            &result, error)) {
    return false;
  }
  session_ = json::value_to<std::string>(json::parse(result).at("sessionId"));
  return Send("Page.enable", "{}", true, &result, error);
}

bool ChromiumPage::Send(const std::string& method, const std::string& params_json, bool in_session,
                        std::string* result_json, std::string* error) {
  const int id = next_id_++;
  std::string message =
      R"({"id":)" + std::to_string(id) + R"(,"method":")" + method + R"(","params":)" + params_json;
  if (in_session) message += R"(,"sessionId":")" + session_ + "\"";
  message += "}";
  message.push_back('\0');
  if (::write(to_browser_, message.data(), message.size()) !=
      static_cast<ssize_t>(message.size())) {
    *error = "the browser's pipe is closed";
    return false;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (true) {
    const size_t end = pending_.find('\0');
    if (end != std::string::npos) {
      const std::string text = pending_.substr(0, end);
      pending_.erase(0, end + 1);
      json::value answer = json::parse(text);
      const json::object& object = answer.as_object();
      if (!object.contains("id") || object.at("id").to_number<int>() != id) continue;  // events
      if (object.contains("error")) {
        *error = method + ": " + json::serialize(object.at("error"));
        return false;
      }
      *result_json = json::serialize(object.at("result"));
      return true;
    }
    pollfd p{.fd = from_browser_, .events = POLLIN, .revents = 0};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) {
      *error = method + ": no answer from the browser";
      return false;
    }
    char buffer[65536];
    const ssize_t n = ::read(from_browser_, buffer, sizeof(buffer));
    if (n <= 0) {
      *error = method + ": the browser went away";
      return false;
    }
    pending_.append(buffer, static_cast<size_t>(n));
  }
}

bool ChromiumPage::Navigate(const std::string& url, std::string* error) {
  std::string result;
  return Send("Page.navigate", R"({"url":)" + json::serialize(json::value(url)) + "}", true,
              &result, error);
}

std::string ChromiumPage::Evaluate(const std::string& expression) {
  std::string result, error;
  if (!Send("Runtime.evaluate",
            R"({"expression":)" + json::serialize(json::value(expression)) +
                R"(,"returnByValue":true,"awaitPromise":true})",
            true, &result, &error)) {
    return "";
  }
  const json::object answer = json::parse(result).as_object();
  if (answer.contains("exceptionDetails")) return "";
  const json::object& value = answer.at("result").as_object();
  return value.contains("value") ? json::serialize(value.at("value")) : "";
}

std::string ChromiumPage::WaitForString(const std::string& expression,
                                        std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    const std::string value = Evaluate(expression);
    if (value.size() > 2 && value.front() == '"') {
      return json::value_to<std::string>(json::parse(value));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return "";
}

}  // namespace ferry::shortlink::testing
