#pragma once

// Process plumbing shared by the server fixtures in this folder. Internal: tests use the
// fixture classes (redis_server.h, mariadb_server.h, tests/registry/zookeeper_server.h), not
// these helpers.

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace ferry::testsupport::internal {

// A port on 127.0.0.1 the kernel considers free right now (bind to port 0, read it back,
// release it). The server binds it a moment later; losing that race shows up as an early exit
// and the fixtures then try another port.
uint16_t PickFreePort();

// A new directory `<temp>/<prefix>XXXXXX` (mode 0700); empty on failure.
std::filesystem::path MakeTempDir(const std::string& prefix);

// Forks and execs `args` (args[0] is an absolute path) with stdin from /dev/null and
// stdout+stderr appended to `log`. The child is SIGKILLed when the forking thread exits, so a
// crashed or timed-out test never leaves a server behind. Returns the pid, or -1 with `error`
// set.
pid_t Spawn(const std::vector<std::string>& args, const std::filesystem::path& log,
            std::string* error);

// Reaps `pid` if it has exited (without blocking); fills `status` when it has.
bool Exited(pid_t pid, int* status = nullptr);

// Waits up to `timeout` for `pid` to exit. True (with `status`) when it did.
bool WaitExit(pid_t pid, std::chrono::milliseconds timeout, int* status = nullptr);

// SIGTERM, then SIGKILL once `grace` has passed; always reaps the process.
void Terminate(pid_t pid, std::chrono::milliseconds grace);

// SIGKILL and reap.
void KillNow(pid_t pid);

// The size of a file, 0 when it does not exist.
uint64_t FileSize(const std::filesystem::path& path);

// The last `max_bytes` of a text file after its first `from` bytes ("" when it cannot be read).
std::string FileTail(const std::filesystem::path& path, uint64_t from = 0, size_t max_bytes = 4000);

// Whether the server's log, after its first `from` bytes, says it could not bind its port.
bool LogShowsPortInUse(const std::filesystem::path& path, uint64_t from);

// "exit code N" / "killed by signal N" for a waitpid status.
std::string DescribeStatus(int status);

}  // namespace ferry::testsupport::internal
