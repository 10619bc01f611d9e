#include "metrics/proc_stat.h"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace ferry::metrics {
namespace {

std::optional<double> BootTimeSeconds() {
  std::ifstream stat("/proc/stat");
  std::string key;
  double value;
  while (stat >> key) {
    if (key == "btime" && stat >> value) return value;
    stat.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return std::nullopt;
}

}  // namespace

std::optional<ProcStat> ReadProcStat() {
  std::ifstream file("/proc/self/stat");
  std::string line;
  if (!std::getline(file, line)) return std::nullopt;
  // The command name (field 2) is in parentheses and may itself hold spaces and ')'.
  const size_t name_end = line.rfind(')');
  if (name_end == std::string::npos) return std::nullopt;
  std::istringstream rest(line.substr(name_end + 1));
  std::vector<std::string> fields;  // fields[0] is field 3 of proc(5), the state
  for (std::string field; rest >> field;) fields.push_back(field);
  if (fields.size() < 22) return std::nullopt;
  const auto number = [&](size_t proc_field) {
    return std::strtod(fields[proc_field - 3].c_str(), nullptr);
  };

  static const double ticks_per_second = static_cast<double>(sysconf(_SC_CLK_TCK));
  static const double page_bytes = static_cast<double>(sysconf(_SC_PAGESIZE));
  static const std::optional<double> boot_time = BootTimeSeconds();
  ProcStat stat;
  stat.cpu_seconds = (number(14) + number(15)) / ticks_per_second;  // utime + stime
  stat.start_time_seconds = boot_time.value_or(0) + number(22) / ticks_per_second;
  stat.virtual_bytes = number(23);
  stat.resident_bytes = number(24) * page_bytes;
  return stat;
}

std::optional<int64_t> CountOpenFds() {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return std::nullopt;
  const std::string own = std::to_string(dirfd(dir));
  int64_t count = 0;
  while (const dirent* entry = readdir(dir)) {
    const std::string_view name = entry->d_name;
    if (name != "." && name != ".." && name != own) ++count;
  }
  closedir(dir);
  return count;
}

std::optional<double> MaxFds() {
  rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return std::nullopt;
  if (limit.rlim_cur == RLIM_INFINITY) return std::numeric_limits<double>::infinity();
  return static_cast<double>(limit.rlim_cur);
}

}  // namespace ferry::metrics
