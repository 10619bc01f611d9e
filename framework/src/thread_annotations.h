#pragma once

#include <mutex>

// Clang's thread-safety analysis (-Wthread-safety, on in the clang tree scripts/fuzz.sh builds):
// members say which mutex guards them, functions which mutex they need held, and the compiler
// refuses code that touches guarded state without it. Other compilers see nothing.
#if defined(__clang__)
#define FERRY_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define FERRY_THREAD_ANNOTATION(x)
#endif

#define FERRY_CAPABILITY(x) FERRY_THREAD_ANNOTATION(capability(x))
#define FERRY_SCOPED_CAPABILITY FERRY_THREAD_ANNOTATION(scoped_lockable)
#define FERRY_GUARDED_BY(x) FERRY_THREAD_ANNOTATION(guarded_by(x))
#define FERRY_PT_GUARDED_BY(x) FERRY_THREAD_ANNOTATION(pt_guarded_by(x))
#define FERRY_REQUIRES(...) FERRY_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define FERRY_EXCLUDES(...) FERRY_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define FERRY_ACQUIRE(...) FERRY_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define FERRY_RELEASE(...) FERRY_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define FERRY_NO_THREAD_SAFETY_ANALYSIS FERRY_THREAD_ANNOTATION(no_thread_safety_analysis)

namespace ferry {

// std::mutex as a capability the analysis knows.
class FERRY_CAPABILITY("mutex") Mutex {
 public:
  void lock() FERRY_ACQUIRE() { mu_.lock(); }
  void unlock() FERRY_RELEASE() { mu_.unlock(); }

 private:
  friend class MutexLock;
  std::mutex mu_;
};

// Holds a Mutex for its scope, as std::unique_lock does, which condition variables wait with.
class FERRY_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mu) FERRY_ACQUIRE(mu) : lock_(mu.mu_) {}
  ~MutexLock() FERRY_RELEASE() = default;
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

  // Lets go of the mutex for a while (a call that must not hold it), then takes it again.
  void Unlock() FERRY_RELEASE() { lock_.unlock(); }
  void Lock() FERRY_ACQUIRE() { lock_.lock(); }

  // For std::condition_variable::wait*: held again whenever the wait returns.
  std::unique_lock<std::mutex>& native() { return lock_; }

 private:
  std::unique_lock<std::mutex> lock_;
};

}  // namespace ferry
