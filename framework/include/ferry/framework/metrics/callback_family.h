#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "ferry/codec/status.h"
#include "ferry/framework/metrics/family.h"
#include "ferry/framework/result.h"

namespace ferry::metrics {

class CallbackFamily;

// Keeps one series of a CallbackFamily bound; destroying (or resetting) it unbinds the series,
// after which its callback never runs again. Movable; must not outlive the family's registry
// (the process-wide one never goes).
class [[nodiscard]] CallbackHandle {
 public:
  CallbackHandle() = default;
  CallbackHandle(CallbackHandle&& other) noexcept;
  CallbackHandle& operator=(CallbackHandle&& other) noexcept;
  ~CallbackHandle() { Reset(); }

  // Waits for a scrape that is running the callback to finish with it.
  void Reset();

 private:
  friend class CallbackFamily;
  CallbackHandle(CallbackFamily* family, uint64_t id) : family_(family), id_(id) {}

  CallbackFamily* family_ = nullptr;
  uint64_t id_ = 0;
};

// A family whose values are read at scrape time from state kept elsewhere: a pool's queue
// depth, a server's connections, the process's CPU time. Each series is a callback bound to
// label values; it costs nothing between scrapes.
class CallbackFamily final : public Family {
 public:
  // Binds the series of `label_values` to `read`, which every scrape calls (on the scraping
  // thread, with this family's lock held: it must be quick, and must not bind or unbind series
  // of this family) until the handle goes. INVALID_ARGUMENT as CellFamily::WithLabels;
  // ALREADY_EXISTS when those values are bound already.
  Result<CallbackHandle> Bind(const std::vector<std::string>& label_values,
                              std::function<double()> read);

  FamilySnapshot Collect() const override;

 private:
  friend class MetricsRegistry;
  friend class CallbackHandle;
  struct Binding {
    uint64_t id;
    std::function<double()> read;
  };

  explicit CallbackFamily(FamilySnapshot info) : Family(std::move(info)) {}
  void Unbind(uint64_t id);

  mutable std::mutex mu_;
  uint64_t next_id_ = 1;
  std::map<std::vector<std::string>, Binding> bindings_;
};

}  // namespace ferry::metrics
