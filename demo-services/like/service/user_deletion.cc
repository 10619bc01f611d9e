#include "service/user_deletion.h"
#include "storage/like_clock.h"

#include <chrono>

#include "service/catch_up.h"

namespace ferry::like {

namespace {

// How long a deletion waits for the record to take what Redis held when it began.
constexpr auto kCatchUpWait = std::chrono::milliseconds(30000);

// Unlikes every content the record says the user likes, walking its list once; *unliked counts
// real changes.
Status UnlikeRecorded(LikeCore& core, const std::string& user, int64_t* unliked) {
  constexpr uint32_t kPage = 1000;
  int64_t after_version = 0;
  int64_t after_content = 0;
  while (true) {
    std::vector<std::pair<int64_t, int64_t>> liked;
    if (Status s = core.database->ListLiked(user, after_version, after_content, kPage, &liked);
        !s.ok()) {
      return s;
    }
    for (const auto& [content, version] : liked) {
      SetLikeResult result;
      if (Status s = core.store->SetLike(content, user, false, "", &result); !s.ok()) return s;
      *unliked += result.changed ? 1 : 0;
    }
    if (liked.size() < kPage) return Status::Ok();
    after_version = liked.back().second;
    after_content = liked.back().first;
  }
}

}  // namespace

Status RunUserDeletions(LikeCore& core, uint32_t limit) {
  std::vector<UserDeletion> pending;
  if (Status s = core.database->PendingUserDeletions(limit, &pending); !s.ok()) return s;
  for (const UserDeletion& d : pending) {
    // Counted across runs: a run that stops half way keeps its unlikes, and the next finds
    // fewer.
    int64_t unliked = d.unliked;
    Status s = UnlikeRecorded(core, d.user_id, &unliked);
    if (s.ok()) s = CatchUp(core, kCatchUpWait);
    if (s.ok()) s = UnlikeRecorded(core, d.user_id, &unliked);
    if (s.ok()) s = CatchUp(core, kCatchUpWait);
    std::vector<std::pair<int64_t, int64_t>> left;
    if (s.ok()) s = core.database->ListLiked(d.user_id, 0, 0, 1, &left);
    // Changes still arriving: the next run goes on from what this one did.
    const int64_t done = s.ok() && left.empty() ? UnixMs() : 0;
    if (Status u = core.database->UpdateUserDeletion(d.user_id, unliked, done); !u.ok()) return u;
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace ferry::like
