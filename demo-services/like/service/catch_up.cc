#include "service/catch_up.h"

#include <thread>

namespace ferry::like {

Status CatchUp(LikeCore& core, std::chrono::milliseconds timeout) {
  if (core.log == nullptr || core.outbox_relayed) return Status::Ok();
  std::vector<uint32_t> partitions(core.log->partitions());
  for (uint32_t p = 0; p < partitions.size(); ++p) partitions[p] = p;
  std::map<uint32_t, std::string> last;
  if (Status s = core.log->LastIds(partitions, &last); !s.ok()) return s;
  std::map<uint32_t, int64_t> generations;
  if (Status s = core.log->Generations({partitions.begin(), partitions.end()}, &generations);
      !s.ok()) {
    return s;
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (uint32_t p : partitions) {
    if (last[p] == "0-0") continue;
    while (true) {
      PartitionCheckpoint cp;
      if (Status s = core.database->Checkpoint(p, &cp); !s.ok()) return s;
      if (cp.generation == generations[p] && !StreamIdBefore(cp.last_id, last[p])) break;
      if (std::chrono::steady_clock::now() > deadline) {
        return Status(StatusCode::UNAVAILABLE, "partition " + std::to_string(p) +
                                                   ": the record has not caught up with " +
                                                   last[p] + " (at " + cp.last_id + ")");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  return Status::Ok();
}

}  // namespace ferry::like
